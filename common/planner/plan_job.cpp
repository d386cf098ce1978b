#include "common/planner/plan_job.h"

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "common/planner/shapes.h"
#include "common/planner/virtual_stages.h"
#include "common/util/errors.h"

namespace spiderflow {

namespace {

// A choice plan_job made goes first in the note, before the policy's own words.
void prepend_note(PlanResult& result, const std::string& note) {
    result.note = result.note.empty() ? note : note + "; " + result.note;
}

// Activation recomputation, when the job leaves it open (plan_job's header says the rule).
PlanResult plan_recompute(const PlannerPolicy& planner, const PlanRequest& request, const CostModel& cost) {
    if (request.job.recompute_stated || request.job.recompute) return planner.plan(request, cost);
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    // Recomputation is a trade, not a last resort: a layout that fits only with it may beat the
    // ones that fit without (fewer stages, less tensor parallelism; with the GPU count open, fewer
    // GPUs in one site instead of three). Both are planned and the better kept, so allowing it
    // never gives a worse plan. (Recomputing only when nothing else fit cost llama3-70b on
    // two-datacenters-dedicated 15% once the distributed optimizer let a poor layout fit.)
    PlanRequest first = request;
    if (request.time_limit_s > 0) first.time_limit_s = request.time_limit_s / 2;
    std::string without;
    std::optional<PlanResult> off;
    try {
        off = planner.plan(first, cost);
    } catch (const InfeasibleError& e) {
        without = e.what();
    }
    PlanRequest again = request;
    again.job.recompute = true;
    // Recomputation only trades compute for memory: where the first search says which shapes
    // memory limited, only those can gain, and none means nothing can.
    if (off && !off->hit_limit && off->memory_limited_shapes) {
        if (off->memory_limited_shapes->empty()) return *off;
        again.only_shapes = off->memory_limited_shapes;
    }
    if (request.time_limit_s > 0) {
        again.time_limit_s = request.time_limit_s - std::chrono::duration<double>(Clock::now() - start).count();
        if (again.time_limit_s <= 0) {
            if (off) return *off;
            throw InfeasibleError(without + " (the time limit left no time to try activation recomputation)");
        }
    }
    PlanResult result;
    try {
        result = planner.plan(again, cost);
    } catch (const InfeasibleError& e) {
        if (off) return *off;
        // The same reason either way (too many GPUs asked for, say): said once.
        if (without == e.what()) throw InfeasibleError(without + " (with activation recomputation on, too)");
        throw InfeasibleError(std::string(e.what()) + " (with activation recomputation on; without it: " + without +
                              ")");
    }
    if (off && !better_prediction(result.plan.prediction, result.plan.world_size(), off->plan.prediction,
                                  off->plan.world_size(), request.objective)) {
        return *off;
    }
    result.plan.job.recompute = true;
    result.plan.planning_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();  // both
    if (result.runner_up) result.runner_up->job.recompute = true;
    std::string note;
    if (off) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "activation recomputation on: it lets a better layout fit (%.1f s per iteration on %d GPUs, "
                      "against %.1f s on %d GPUs without it; a job spec's \"recompute\" decides it instead)",
                      result.plan.prediction.iteration_s, result.plan.world_size(), off->plan.prediction.iteration_s,
                      off->plan.world_size());
        note = buf;
    } else {
        note = "activation recomputation on: without it no layout fits the GPUs' memory (a job spec's \"recompute\" "
               "decides it instead)";
    }
    prepend_note(result, note);
    return result;
}

// The distributed optimizer, when the job leaves it open: the search ran with it (a replica's
// optimizer states shrink by dp, the optimizer step with them); a plan of one replica has nothing
// to shard and says so by leaving it off. When the layout fits only with it, the note says so.
void settle_zero1(PlanResult& result, const CostModel& cost) {
    auto settle = [](Plan& p) { p.job.zero1 = p.dp > 1; };
    settle(result.plan);
    if (result.runner_up) settle(*result.runner_up);
    if (!result.plan.job.zero1) return;
    Plan without = result.plan;
    without.job.zero1 = false;
    const Prediction p = cost.estimate(without);
    if (p.feasible) return;
    const std::string note = "distributed optimizer on (ZeRO-1, Megatron's --use-distributed-optimizer): without it "
                             "this layout does not fit (" + p.infeasible_reason + ")";
    prepend_note(result, note);
}

}  // namespace

PlanResult plan_job(const PlannerPolicy& planner, const PlanRequest& request, const CostModel& cost) {
    const bool choose_zero1 = !request.job.zero1_stated && !request.job.zero1;
    PlanRequest asked = request;
    if (choose_zero1) asked.job.zero1 = true;
    PlanResult result = plan_recompute(planner, asked, cost);
    const std::string interleaved = choose_virtual_stages(result.plan, request.objective, cost);
    if (!interleaved.empty()) prepend_note(result, interleaved);
    if (choose_zero1) settle_zero1(result, cost);
    return result;
}

}  // namespace spiderflow
