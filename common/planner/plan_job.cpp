#include "common/planner/plan_job.h"

#include <array>
#include <chrono>
#include <vector>
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

std::string seconds_on(const Plan& p) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.1f s per iteration on %d GPUs", p.prediction.iteration_s, p.world_size());
    return buf;
}

// What each recomputation the search tried gave: the plan, or why none fit.
struct RecomputeAttempt {
    Recompute recompute = Recompute::none;
    std::optional<PlanResult> result;
    std::string why_none;
    bool skipped = false;   // nothing memory limited in the attempt before: it could gain nothing
};

// The note of the chosen attempt, with what the others cost.
std::string recompute_note(const std::vector<RecomputeAttempt>& attempts, size_t chosen) {
    std::string note = std::string(to_string(attempts[chosen].recompute)) + " activation recomputation (" +
                       seconds_on(attempts[chosen].result->plan) + ")";
    std::string others;
    for (size_t i = 0; i < attempts.size(); ++i) {
        if (i == chosen || attempts[i].skipped) continue;
        const RecomputeAttempt& a = attempts[i];
        const std::string what = a.recompute == Recompute::none ? "without recomputation"
                                                                : std::string("with ") + to_string(a.recompute);
        others += (others.empty() ? "" : ", ") + what + ": " +
                  (a.result ? seconds_on(a.result->plan) : std::string("no layout fits the GPUs' memory"));
    }
    if (!others.empty()) note += "; " + others;
    return note + " (a job spec's \"recompute\", --recompute or sbatch's --llm-recompute decides it instead)";
}

// Activation recomputation, when the job leaves it open (plan_job's header says the rule).
PlanResult plan_recompute(const PlannerPolicy& planner, const PlanRequest& request, const CostModel& cost) {
    if (request.job.recompute_stated || request.job.recomputes()) return planner.plan(request, cost);
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    const auto left_s = [&] {
        return request.time_limit_s - std::chrono::duration<double>(Clock::now() - start).count();
    };
    std::vector<RecomputeAttempt> attempts;
    const Recompute order[] = {Recompute::none, Recompute::selective, Recompute::full};
    std::optional<std::vector<std::array<int, 4>>> shapes;   // unset: every shape
    for (size_t k = 0; k < 3; ++k) {
        RecomputeAttempt a;
        a.recompute = order[k];
        if (k > 0) {
            const RecomputeAttempt& before = attempts.back();
            // Only what memory limited before can gain from recomputing more.
            if (before.result && !before.result->hit_limit && before.result->memory_limited_shapes) {
                if (before.result->memory_limited_shapes->empty()) {
                    a.skipped = true;
                    attempts.push_back(a);
                    continue;
                }
                shapes = before.result->memory_limited_shapes;
            } else if (before.result || before.skipped) {
                shapes.reset();
            }
        }
        PlanRequest attempt = request;
        attempt.job.recompute = order[k];
        attempt.only_shapes = shapes;
        if (request.time_limit_s > 0) {
            attempt.time_limit_s = left_s() / static_cast<double>(3 - k);
            if (attempt.time_limit_s <= 0) break;
        }
        try {
            a.result = planner.plan(attempt, cost);
        } catch (const InfeasibleError& e) {
            a.why_none = e.what();
        }
        attempts.push_back(std::move(a));
    }
    size_t best = attempts.size();
    for (size_t i = 0; i < attempts.size(); ++i) {
        if (!attempts[i].result) continue;
        const Plan& p = attempts[i].result->plan;
        if (best == attempts.size() ||
            better_prediction(p.prediction, p.world_size(), attempts[best].result->plan.prediction,
                              attempts[best].result->plan.world_size(), request.objective))
            best = i;
    }
    if (best == attempts.size()) {
        std::string why = attempts.empty() ? std::string("no layout found") : attempts.front().why_none;
        if (attempts.size() < 3) why += " (the time limit left no time to try activation recomputation)";
        else if (attempts.back().why_none == why) why += " (with activation recomputation on, too)";
        else why += " (with activation recomputation on, full: " + attempts.back().why_none + ")";
        throw InfeasibleError(why);
    }
    PlanResult result = *attempts[best].result;
    result.plan.planning_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();  // all
    if (best > 0) prepend_note(result, recompute_note(attempts, best));   // none recomputed: nothing to explain
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

// Sequence parallelism, when the job leaves it open: the search ran with it; a plan without
// tensor parallelism has nothing to split and says so by leaving it off. When the layout fits
// only with it, or is slower without it, the note says so.
void settle_sequence_parallel(PlanResult& result, const CostModel& cost) {
    auto settle = [](Plan& p) { p.job.sequence_parallel = p.tp > 1; };
    settle(result.plan);
    if (result.runner_up) settle(*result.runner_up);
    if (!result.plan.job.sequence_parallel) return;
    Plan without = result.plan;
    without.job.sequence_parallel = false;
    const Prediction p = cost.estimate(without);
    if (p.feasible && p.iteration_s <= result.plan.prediction.iteration_s) return;
    const std::string note = "sequence parallelism on (Megatron's --sequence-parallel, tp " +
                             std::to_string(result.plan.tp) + "): without it this layout " +
                             (p.feasible ? "takes " + seconds_on(without) : "does not fit (" + p.infeasible_reason + ")");
    prepend_note(result, note);
}

}  // namespace

PlanResult plan_job(const PlannerPolicy& planner, const PlanRequest& request, const CostModel& cost) {
    const bool choose_zero1 = !request.job.zero1_stated && !request.job.zero1;
    const bool choose_sp = !request.job.sequence_parallel_stated && !request.job.sequence_parallel;
    PlanRequest asked = request;
    if (choose_zero1) asked.job.zero1 = true;
    if (choose_sp) asked.job.sequence_parallel = true;
    PlanResult result = plan_recompute(planner, asked, cost);
    const std::string interleaved = choose_virtual_stages(result.plan, request.objective, cost);
    if (!interleaved.empty()) prepend_note(result, interleaved);
    if (choose_sp) settle_sequence_parallel(result, cost);
    if (choose_zero1) settle_zero1(result, cost);
    return result;
}

}  // namespace spiderflow
