#include "common/planner/baselines/global_ilp/global_ilp.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>

#include "common/planner/baselines/common/evaluator.h"
#include "common/planner/baselines/global_ilp/shape_costs.h"
#include "common/planner/baselines/global_ilp/shape_milp.h"
#include "common/planner/baselines/global_ilp/start_layout.h"
#include "common/util/errors.h"

namespace spiderflow {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point after(Clock::time_point t, double seconds) {
    return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

PlanResult GlobalIlpPolicy::plan(const PlanRequest& request, const CostModel& cost) const {
    const Clock::time_point started = Clock::now();
    baselines::Evaluator eval(request, cost, name(), 600.0);
    baselines::BestKeeper keeper(eval);
    const std::vector<Shape> shapes = eval.shapes();
    // The limit bounds the whole plan() call: the MILPs get it less a share for realising and
    // polishing the winners afterwards.
    const double limit_s = eval.limit_s();
    const Clock::time_point solve_deadline = after(started, limit_s * 0.9);

    // Cheap start layouts first; the MILPs then run best start first, so a limit cuts off the
    // least promising shapes.
    std::vector<global_ilp::ShapeCosts> costs;
    std::vector<global_ilp::StartLayout> starts;
    bool cut_short = false;
    for (const Shape& s : shapes) {
        if (Clock::now() >= solve_deadline) {
            cut_short = true;
            break;
        }
        costs.push_back(global_ilp::shape_costs(eval, s));
        starts.push_back(global_ilp::best_start_layout(costs.back()));
    }
    std::vector<size_t> order(costs.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const bool fa = !starts[a].cells.empty(), fb = !starts[b].cells.empty();
        if (fa != fb) return fa;
        return starts[a].objective < starts[b].objective;
    });

    // Shapes without a start layout (no cluster order fits every stage's memory) are not
    // solved: without a bound their MILP is the unpruned one, which does not fit any budget.
    size_t with_start = 0;
    for (const auto& st : starts) with_start += st.cells.empty() ? 0 : 1;
    const int skipped = static_cast<int>(starts.size() - with_start);
    order.resize(with_start);  // sorted: the shapes with a start come first

    std::map<milp::SolveStatus, int> statuses;
    int solved = 0;
    long long vars = 0, rows = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        const Clock::time_point now = Clock::now();
        if (now >= solve_deadline) {
            cut_short = true;
            break;
        }
        // The time left shared by the shapes left; what one does not use goes to the next.
        const double left_s = std::chrono::duration<double>(solve_deadline - now).count();
        const Clock::time_point deadline = after(now, left_s / static_cast<double>(order.size() - i));
        const size_t idx = order[i];
        const global_ilp::ShapeSolve sol = global_ilp::solve_shape(costs[idx], starts[idx], deadline);
        ++statuses[sol.status];
        ++solved;
        vars = std::max<long long>(vars, sol.variables);
        rows = std::max<long long>(rows, sol.rows);
        if (sol.status != milp::SolveStatus::optimal && sol.status != milp::SolveStatus::infeasible) cut_short = true;
        if (sol.cells.empty()) continue;
        const Plan p = eval.realise(costs[idx].shape, sol.cells);
        keeper.offer(p, baselines::layout_key(p));
    }
    std::string note = "global-ilp: " + std::to_string(solved) + " of " + std::to_string(shapes.size()) +
                       " shape MILPs solved by CBC (largest " + std::to_string(vars) + " variables, " +
                       std::to_string(rows) + " rows), " + std::to_string(skipped) +
                       " without a start layout that fits memory skipped; status";
    for (const auto& [st, count] : statuses) note += std::string(" ") + milp::to_string(st) + "=" + std::to_string(count);
    if (keeper.empty() && cut_short)
        throw InfeasibleError("policy global-ilp found no layout before its time limit of " +
                              std::to_string(limit_s) + " s");
    PlanResult r = keeper.result(eval, note);
    if (cut_short && !r.hit_limit) {
        r.hit_limit = true;
        r.note += "; the time limit stopped CBC before proving optimality";
    }
    return r;
}

std::unique_ptr<PlannerPolicy> make_global_ilp() { return std::make_unique<GlobalIlpPolicy>(); }

}  // namespace spiderflow
