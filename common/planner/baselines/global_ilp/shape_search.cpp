#include "common/planner/baselines/global_ilp/shape_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "common/planner/baselines/global_ilp/shape_milp.h"

namespace spiderflow::global_ilp {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::vector<int> start_cells(const ShapeCandidate& s) {
    std::vector<int> cells = s.start.cells;
    for (int& p : cells) p = s.costs.clusters[static_cast<size_t>(p)];
    return cells;
}

double start_value(const ShapeCandidate& s) { return s.start.cells.empty() ? kInfinity : s.start.objective; }

}  // namespace

std::vector<ShapeCandidate> shape_candidates(baselines::Evaluator& eval, const std::vector<Shape>& shapes,
                                             Clock::time_point deadline) {
    std::vector<ShapeCandidate> out;
    for (const Shape& shape : shapes) {
        std::optional<ShapeCosts> c = shape_costs(eval, shape, deadline);
        if (!c) break;
        ShapeCandidate cand;
        cand.costs = std::move(*c);
        cand.start = best_start_layout(cand.costs);
        cand.bound = proxy_lower_bound(cand.costs);
        out.push_back(std::move(cand));
    }
    return out;
}

SearchResult search_shapes(const std::vector<ShapeCandidate>& shapes, Clock::time_point deadline,
                           const SearchOptions& options, const LayoutSink& sink) {
    SearchResult r;
    r.best = kInfinity;
    double incumbent = kInfinity;  // the best value known, a start not yet offered included
    auto offer = [&](size_t i, const std::vector<int>& cells, double value) {
        if (cells.empty()) return;
        sink(i, cells);
        incumbent = std::min(incumbent, value);
        if (value < r.best) {
            r.best = value;
            r.best_shape = static_cast<int>(i);
        }
    };
    // What a shape must beat to matter: the best layout so far, less the proof's tolerance.
    auto cutoff = [&] { return options.cross_shape_bounds ? incumbent * (1 - kRelativeGap) : kInfinity; };

    std::vector<size_t> order(shapes.size());
    std::iota(order.begin(), order.end(), size_t{0});
    if (options.cross_shape_bounds) {
        // Every start is a layout already: the incumbent begins as the best of them.
        for (const ShapeCandidate& s : shapes) incumbent = std::min(incumbent, start_value(s));
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            if (shapes[a].bound.total != shapes[b].bound.total) return shapes[a].bound.total < shapes[b].bound.total;
            return start_value(shapes[a]) < start_value(shapes[b]);
        });
    } else {
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return start_value(shapes[a]) < start_value(shapes[b]); });
    }
    // A shape still needs its MILP unless its bound rules it out or nothing bounds its model.
    auto needs_milp = [&](size_t i) {
        const ShapeCandidate& s = shapes[i];
        if (std::isinf(s.bound.total)) return false;
        if (options.cross_shape_bounds && s.bound.total >= cutoff()) return false;
        return !(s.start.cells.empty() && std::isinf(cutoff()));
    };

    // One MILP with an equal share of the time left among `waiting` shapes (itself included).
    auto solve = [&](size_t i, size_t waiting) {
        const ShapeCandidate& s = shapes[i];
        const Clock::time_point now = Clock::now();
        const double left_s = std::chrono::duration<double>(deadline - now).count();
        const Clock::time_point own_deadline =
            now + std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double>(left_s / static_cast<double>(std::max<size_t>(1, waiting))));
        const ShapeSolve sol = solve_shape(s.costs, s.start, s.bound, cutoff(), own_deadline);
        r.variables = std::max<long long>(r.variables, sol.variables);
        r.rows = std::max<long long>(r.rows, sol.rows);
        offer(i, sol.cells, sol.objective);
        return sol.status;
    };
    // Counts a MILP that settled its shape; false when the limit stopped it.
    auto settled = [&](milp::SolveStatus status) {
        if (status == milp::SolveStatus::optimal) ++r.optimal;
        else if (status == milp::SolveStatus::infeasible) ++r.closed;
        else return false;
        return true;
    };

    // Shapes whose share of the time ran out, or that had nothing to bound them yet: when the
    // first pass leaves time (later shapes closed quickly), they get it in a second pass.
    std::vector<size_t> again;
    for (size_t pos = 0; pos < order.size(); ++pos) {
        const size_t i = order[pos];
        const ShapeCandidate& s = shapes[i];
        if (std::isinf(s.bound.total)) {
            ++r.no_layout;
            continue;
        }
        if (options.cross_shape_bounds && s.bound.total >= cutoff()) {
            ++r.pruned;
            offer(i, start_cells(s), start_value(s));  // the cost model may still like it best
            continue;
        }
        if (s.start.cells.empty() && std::isinf(cutoff())) {
            again.push_back(i);
            continue;
        }
        if (Clock::now() >= deadline) {
            // Out of time: this shape and every later one that still needs a MILP is unproven.
            for (size_t rest = pos; rest < order.size(); ++rest)
                if (needs_milp(order[rest])) again.push_back(order[rest]);
            break;
        }
        // The time left shared by the shapes still needing a MILP; what one does not use goes on.
        size_t waiting = 0;
        for (size_t rest = pos; rest < order.size(); ++rest) waiting += needs_milp(order[rest]) ? 1 : 0;
        if (!settled(solve(i, waiting))) again.push_back(i);
    }
    for (size_t n = 0; n < again.size(); ++n) {
        const size_t i = again[n];
        const ShapeCandidate& s = shapes[i];
        if (options.cross_shape_bounds && s.bound.total >= cutoff()) {
            ++r.pruned;
            continue;
        }
        if (s.start.cells.empty() && std::isinf(cutoff())) {
            ++r.unbounded;
            continue;
        }
        if (Clock::now() >= deadline) {
            ++r.cut;
            continue;
        }
        if (!settled(solve(i, again.size() - n))) ++r.cut;
    }
    const bool complete = r.cut == 0 && r.unbounded == 0;
    r.proven = complete && r.best_shape >= 0;
    return r;
}

}  // namespace spiderflow::global_ilp
