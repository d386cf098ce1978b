// Planning under job_submit's time budget, on owned threads: a search past its budget is
// abandoned (it finishes on its own and is joined later), so slurmctld never waits longer than
// the budget. planner_threads_running() and join_planner_threads() (submit_planner.h) count and
// join these threads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/plan/plan.h"
#include "common/planner/plan_compare.h"
#include "common/planner/planner.h"
#include "common/topology/topology.h"

namespace spiderflow::slurmjob {

struct PlanOutcome {
    bool ok = false;
    bool user_error = false;
    std::string message;
    Plan plan;
};

// The plan of `request` by `planner` on `topology`, or why not (user_error: the request cannot be
// planned; otherwise our fault, a timeout included).
PlanOutcome plan_with_budget(const PlanRequest& request, const std::shared_ptr<const PlannerPolicy>& planner,
                             const std::shared_ptr<const Topology>& topology, double budget_s);

// The plan's alternatives (plan_compare.h) within what is left of the budget; none when late.
// The comparison itself stops planning at the budget, so the thread abandoned here ends soon
// after it (at 1,024 clusters an unbounded one planned every site alone: 17 s of CPU an sbatch).
std::optional<std::vector<PlanComparison>> compare_with_budget(const PlanRequest& request,
                                                               const std::shared_ptr<const PlannerPolicy>& planner,
                                                               const std::shared_ptr<const Topology>& topology,
                                                               const Plan& chosen, double budget_s);

}  // namespace spiderflow::slurmjob
