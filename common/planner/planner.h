// Planning policies behind one interface, built by name (policy_factory.cpp validates names).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/cost/cost_model.h"
#include "common/model/job_spec.h"
#include "common/plan/plan.h"
#include "common/planner/plan_request.h"
#include "common/topology/topology.h"

namespace spiderflow {

struct PlanResult {
    Plan plan;                                   // plan.prediction filled by the cost model
    bool hit_limit = false;                      // a time/trial limit cut the search short
    std::string note;                            // e.g. CBC status, runner-up summary
    // The best layout of a different shape/orientation, for "why this beat the runner-up".
    std::optional<Plan> runner_up;
    // The shapes (tp, pp, dp, micro-batch) memory may have limited in this search: left out by the
    // memory bound, a layout the cost model refused (over memory, or any other reason: counted to
    // be safe), or a stage's layers cut to what its memory holds. Unset when the policy cannot
    // tell (then a search with recomputation looks at every shape).
    std::optional<std::vector<std::array<int, 4>>> memory_limited_shapes;
};

class PlannerPolicy {
public:
    virtual ~PlannerPolicy() = default;
    virtual std::string name() const = 0;
    // Deterministic for equal inputs and seed. Throws InfeasibleError naming the constraint
    // that failed (and what would fit) when no layout exists.
    virtual PlanResult plan(const PlanRequest& request, const CostModel& cost) const = 0;
};

// Names: spinsearch (default), global-ilp, genetic, greedy, first-fit, exhaustive.
// Throws InputError listing the valid names on an unknown one.
std::unique_ptr<PlannerPolicy> make_planner(const std::string& name);
std::vector<std::string> planner_names();

}  // namespace spiderflow
