// Concurrent WAN crossings of one traffic phase (all pipeline sends of a micro-batch slot, or
// all DP all-reduces) and the bandwidth each crossing gets. Crossings whose routes share
// a physical link split that link, even when they join different cluster pairs: two pipelines
// leaving oregon for ohio and for london (routed via ohio) both ride the oregon-ohio link.
#pragma once

#include <vector>

#include "common/topology/topology.h"

namespace spiderflow::cost {

class WanShares {
public:
    explicit WanShares(const Topology& topology) : topology_(topology) {}

    // One more concurrent crossing between clusters a and b (a != b), on their `route`.
    void add(int a, int b, RouteKind route = RouteKind::widest);
    // What one crossing between a and b gets: the smallest share of any link on its route
    // (link bandwidth over the crossings using it). The route's bottleneck when a and b were
    // never added. 0 when unreachable.
    double per_crossing_Bps(int a, int b, RouteKind route = RouteKind::widest);

private:
    struct Pair {
        int a, b;
        RouteKind route;
        int count;
        std::vector<int> links;
        double share_Bps;
    };
    Pair& slot(int a, int b, RouteKind route);
    void settle();

    const Topology& topology_;
    std::vector<Pair> pairs_;        // few distinct pairs per plan: a flat vector beats a map
    std::vector<int> load_;          // per topology link: crossings using it
    bool settled_ = true;
};

}  // namespace spiderflow::cost
