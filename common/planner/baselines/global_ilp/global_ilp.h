// global-ilp: a proxy ILP, not an oracle. For each shape of the shared layout space, one MILP
// over all eligible clusters and all pipeline stages decides how many replicas of each stage
// every cluster hosts (integer n[s][c]), which clusters each stage uses (binary z[s][c]), how
// the pipelines continue from stage s to s+1 between clusters (integer transport flows
// f[s][c][c']), and minimises a linear bound on the iteration time:
//   (1 + (pp-1)/m) * T_comp + T_pp + (1 - dp_overlap) * T_dp
// with T_comp >= stage compute on cluster c whenever z[s][c] (and >= the replicas' mean),
// T_pp >= the pipeline bytes on each inter-cluster pair over its bandwidth, T_dp >= a stage's
// all-reduce over the narrowest link between two clusters it uses (T_dp >= cost * (z + z' - 1)),
// capacity rows per cluster, and each stage's replicas summing to dp (shape_costs.h has the
// coefficients, shape_milp.h the model). A quick start layout per shape (start_layout.h) is
// CBC's first incumbent, and its value removes, exactly, the variables no better solution can
// use. The shapes are one branch and bound (shape_search.h): the best layout of any shape is the
// incumbent of all, so a shape whose lower bound (shape_bound.h) cannot beat it needs no MILP,
// and the others get it as CBC's cutoff. Solved by CBC (common/milp) to proven optimality or the time limit (default 600 s for
// the whole call, model building and realising included; PlanRequest::time_limit_s
// overrides); each shape's proxy optimum is realised and scored by the one CostModel like every
// policy, and the best by the cost model kept. The proxy is linear where the model is not (shared
// links, the bubble, hierarchical rings), so "optimal" here is the proxy's: the cost model may
// rank another policy's layout faster. The oracle is exhaustive search, where it finishes.
#pragma once

#include <memory>

#include "common/planner/planner.h"

namespace spiderflow {

class GlobalIlpPolicy : public PlannerPolicy {
public:
    std::string name() const override { return "global-ilp"; }
    PlanResult plan(const PlanRequest& request, const CostModel& cost) const override;
};

std::unique_ptr<PlannerPolicy> make_global_ilp();

}  // namespace spiderflow
