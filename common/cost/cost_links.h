// The link between two cells as the pipeline and data-parallel parts price it: both send over
// the same NIC shares and the same WAN paths.
#pragma once

#include <string>

#include "common/cost/cost_model.h"
#include "common/cost/wan_shares.h"

namespace spiderflow::cost {

struct LinkFigures {
    double nic_Bps = 0;
    double latency_s = 0;
    double wan_Bps = 0;   // 0 = stays inside a cluster
    int a = -1;           // the two clusters when it crosses the WAN
    int b = -1;
};

// With `single_site`, every cross-cluster link is priced as if it stayed inside one cluster.
LinkFigures link_between(const CostModel& model, const StageCell& x, const StageCell& y, int tp, bool single_site);
// Why no traffic can flow over `l`; empty when it can.
std::string link_problem(const CostModel& model, const LinkFigures& l, const StageCell& x, const StageCell& y);
// What one crossing gets: its NIC share, and inside the WAN its share of the busiest link on its
// route among the crossings added to `shares`.
double effective_Bps(const LinkFigures& l, WanShares& shares);

}  // namespace spiderflow::cost
