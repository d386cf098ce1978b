#include "common/plan/plan_routes.h"

#include <algorithm>

#include "common/plan/plan_traffic.h"

namespace spiderflow {

RouteKind pp_route(const Topology& topology, const Plan& plan, int a, int b) {
    return route_for(topology, a, b, activation_bytes(plan), 1);
}

RouteKind dp_route(const Topology& topology, const Plan& plan, int stage, int ring_size, int a, int b) {
    const int n = std::max(ring_size, 2);
    return route_for(topology, a, b, 2.0 * (n - 1) / n * stage_gradient_bytes(plan, stage), 2 * (n - 1));
}

RouteKind dp_route_between(const Topology& topology, const Plan& plan, int a, int b) {
    for (int s = 0; s < plan.pp; ++s) {
        const std::vector<int> cs = clusters_of_stage(plan, s);
        if (std::find(cs.begin(), cs.end(), a) == cs.end() || std::find(cs.begin(), cs.end(), b) == cs.end()) continue;
        return dp_route(topology, plan, s, plan.hierarchical_dp ? static_cast<int>(cs.size()) : plan.dp, a, b);
    }
    return RouteKind::widest;
}

}  // namespace spiderflow
