// The link between two cells as the pipeline and data-parallel parts price it: both send over
// the same NIC shares and the same WAN paths.
#pragma once

#include <string>

#include "common/cost/cost_model.h"
#include "common/cost/fabric_shares.h"
#include "common/cost/wan_shares.h"

namespace spiderflow::cost {

struct LinkFigures {
    double nic_Bps = 0;
    double latency_s = 0;
    double wan_Bps = 0;   // 0 = stays inside a cluster
    int a = -1;           // the two clusters when it crosses the WAN
    int b = -1;
    RouteKind route = RouteKind::widest;   // which of their routes it takes
};

// With `single_site`, every cross-cluster link is priced as if it stayed inside one cluster.
LinkFigures link_between(const CostModel& model, const StageCell& x, const StageCell& y, int tp, bool single_site);
// Puts a WAN crossing on `route` (plan_routes.h says which suits each kind of traffic). Nothing
// inside a cluster.
void take_route(const CostModel& model, LinkFigures& l, RouteKind route);
// Why no traffic can flow over `l`; empty when it can.
std::string link_problem(const CostModel& model, const LinkFigures& l, const StageCell& x, const StageCell& y);
// The concurrent crossings of one traffic phase: on the WAN's links and on the clusters' switch
// uplinks. Add every crossing of the phase before pricing any.
struct PhaseShares {
    explicit PhaseShares(const CostModel& model);
    void add(const LinkFigures& l, const StageCell& x, const StageCell& y);
    WanShares wan;
    FabricShares fabric;
    bool sharing = true;   // CostOptions::link_sharing: false adds nothing, each crossing is alone
};
// What one crossing from x to y gets: its NIC share, inside a cluster its share of the switch
// uplinks it climbs, and across the WAN its share of the busiest link on its route.
double effective_Bps(const LinkFigures& l, const StageCell& x, const StageCell& y, PhaseShares& shares);

}  // namespace spiderflow::cost
