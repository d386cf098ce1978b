#include "services/slurmjob/planner_budget.h"

#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/planner/deadline_planning.h"
#include "common/planner/plan_job.h"
#include "services/slurmjob/submit_planner.h"

namespace spiderflow::slurmjob {
namespace {

// Owned planner threads: one past its budget finishes on its own and is joined later.
DeadlinePlanner& planner_threads() {
    static DeadlinePlanner threads;
    return threads;
}

}  // namespace

int planner_threads_running() { return planner_threads().running(); }
void join_planner_threads() { planner_threads().join_all(); }

PlanOutcome plan_with_budget(const PlanRequest& request, const std::shared_ptr<const PlannerPolicy>& planner,
                             const std::shared_ptr<const Topology>& topology, double budget_s) {
    const DeadlineOutcome d = planner_threads().plan(
        [request, planner, topology] {
            CostModel cost(*topology, Catalog::builtin());
            return plan_job(*planner, request, cost);
        },
        budget_s);
    PlanOutcome out;
    out.ok = d.kind == DeadlineOutcome::Kind::planned;
    out.user_error = d.kind == DeadlineOutcome::Kind::infeasible || d.kind == DeadlineOutcome::Kind::bad_input;
    out.message = d.message;
    if (out.ok) out.plan = d.result.plan;
    return out;
}

std::optional<std::vector<PlanComparison>> compare_with_budget(const PlanRequest& request,
                                                               const std::shared_ptr<const PlannerPolicy>& planner,
                                                               const std::shared_ptr<const Topology>& topology,
                                                               const Plan& chosen, double budget_s) {
    auto found = std::make_shared<std::vector<PlanComparison>>();
    const DeadlineOutcome d = planner_threads().plan(
        [request, planner, topology, chosen, found, budget_s] {
            CostModel cost(*topology, Catalog::builtin());
            *found = compare_plan(*planner, request, cost, chosen, budget_s);
            return PlanResult{};
        },
        budget_s);
    if (d.kind != DeadlineOutcome::Kind::planned) return std::nullopt;
    return *found;
}

}  // namespace spiderflow::slurmjob
