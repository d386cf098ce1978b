#include "common/planner/plan_job.h"

#include <chrono>
#include <string>

#include "common/util/errors.h"

namespace spiderflow {

PlanResult plan_job(const PlannerPolicy& planner, const PlanRequest& request, const CostModel& cost) {
    if (request.job.recompute_stated || request.job.recompute) return planner.plan(request, cost);
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    std::string without;
    try {
        return planner.plan(request, cost);
    } catch (const InfeasibleError& e) {
        without = e.what();
    }
    PlanRequest again = request;
    again.job.recompute = true;
    if (request.time_limit_s > 0) {
        again.time_limit_s = request.time_limit_s - std::chrono::duration<double>(Clock::now() - start).count();
        if (again.time_limit_s <= 0)
            throw InfeasibleError(without + " (the time limit left no time to try activation recomputation)");
    }
    PlanResult result;
    try {
        result = planner.plan(again, cost);
    } catch (const InfeasibleError& e) {
        // The same reason either way (too many GPUs asked for, say): said once.
        if (without == e.what()) throw InfeasibleError(without + " (with activation recomputation on, too)");
        throw InfeasibleError(std::string(e.what()) + " (with activation recomputation on; without it: " + without +
                              ")");
    }
    result.plan.job.recompute = true;
    result.plan.planning_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();  // both
    if (result.runner_up) result.runner_up->job.recompute = true;
    const std::string note =
        "activation recomputation on: without it no layout fits the GPUs' memory (a job spec's \"recompute\" "
        "decides it instead)";
    result.note = result.note.empty() ? note : note + "; " + result.note;
    return result;
}

}  // namespace spiderflow
