#include "common/planner/baselines/global_ilp/global_ilp.h"

#include <algorithm>
#include <chrono>

#include "common/planner/baselines/common/evaluator.h"
#include "common/planner/baselines/global_ilp/shape_search.h"
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

    // Per shape: the proxy's coefficients, a quick start layout and a lower bound, all cheap;
    // then branch and bound across the shapes (shape_search.h).
    const std::vector<global_ilp::ShapeCandidate> candidates =
        global_ilp::shape_candidates(eval, shapes, solve_deadline);
    bool cut_short = candidates.size() < shapes.size();
    const global_ilp::SearchResult sr = global_ilp::search_shapes(
        candidates, solve_deadline, {}, [&](size_t i, const std::vector<int>& cells) {
            const Plan p = eval.realise(candidates[i].costs.shape, cells);
            keeper.offer(p, baselines::layout_key(p));
        });
    if (sr.cut > 0) cut_short = true;
    const size_t unseen = shapes.size() - candidates.size();

    std::string note = "global-ilp: " + std::to_string(shapes.size()) + " shapes: " + std::to_string(sr.pruned) +
                       " closed by their lower bound, " + std::to_string(sr.no_layout) + " without any layout, " +
                       std::to_string(sr.optimal + sr.closed + sr.cut) + " needed a MILP (CBC; largest " +
                       std::to_string(sr.variables) + " variables, " + std::to_string(sr.rows) +
                       " rows): optimal=" + std::to_string(sr.optimal) +
                       " closed_by_incumbent=" + std::to_string(sr.closed) + " cut_by_limit=" + std::to_string(sr.cut);
    if (unseen > 0) note += ", " + std::to_string(unseen) + " not looked at before the time limit";
    if (sr.unbounded > 0) note += ", " + std::to_string(sr.unbounded) + " without a start layout or incumbent unsolved";
    if (sr.best_shape >= 0) {
        note += "; proxy " + std::to_string(sr.best) + " s, " +
                (sr.proven && unseen == 0 ? "the proxy's optimum over every shape (a linear proxy of the cost model, "
                                            "not the model: another layout may still price faster)"
                                          : "not proven optimal for the proxy");
    }
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
