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

}  // namespace spiderflow
