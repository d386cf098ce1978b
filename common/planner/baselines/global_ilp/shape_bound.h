// A cheap lower bound on one shape's proxy optimum (shape_costs.h), valid for every layout of
// the shape: the proxy is an iteration time in seconds for every shape alike, so a shape whose
// bound is no better than a layout already found elsewhere cannot hold a better one and needs
// no MILP (global_ilp.h). The terms also tighten the MILP's own time variables.
#pragma once

#include "common/planner/baselines/global_ilp/shape_costs.h"

namespace spiderflow::global_ilp {

struct ShapeBound {
    double comp = 0;   // T_comp: every stage's dp replicas need slots, on clusters no faster than the bound
    double pipe = 0;   // T_pp: replicas that no single cluster can host whole must cross somewhere
    double ring = 0;   // T_dp: a stage whose dp replicas fit no single cluster spans two
    double total = 0;  // comp_weight * comp + pipe + dp_weight * ring; +inf when no layout fits
};

ShapeBound proxy_lower_bound(const ShapeCosts& c);

}  // namespace spiderflow::global_ilp
