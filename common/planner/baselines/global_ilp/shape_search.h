// global-ilp's branch and bound across shapes: what one MILP with a shape choice would do. The
// proxy (shape_costs.h) is an iteration time in seconds for every shape, so the best layout
// found in any shape (start layouts included) is an incumbent for all of them: a shape whose
// lower bound (shape_bound.h) does not beat it is closed without a MILP, and the MILPs of the
// others get it as their bound and CBC cutoff (shape_milp.h). Shapes run in order of their
// bound, so the most promising come first and the incumbent gets good early.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

#include "common/planner/baselines/global_ilp/shape_bound.h"
#include "common/planner/baselines/global_ilp/shape_costs.h"
#include "common/planner/baselines/global_ilp/start_layout.h"

namespace spiderflow::global_ilp {

struct ShapeCandidate {
    ShapeCosts costs;
    StartLayout start;
    ShapeBound bound;
};

// Costs, start layout and bound of each shape, in order; fewer when `deadline` passes first.
std::vector<ShapeCandidate> shape_candidates(baselines::Evaluator& eval, const std::vector<Shape>& shapes,
                                             std::chrono::steady_clock::time_point deadline);

struct SearchOptions {
    // false: every shape's MILP alone, bounded by its own start only (the reference the
    // tests compare against).
    bool cross_shape_bounds = true;
};

struct SearchResult {
    double best = 0;        // best proxy value found (+inf when none)
    int best_shape = -1;    // its index in the candidates
    bool proven = false;    // best is the proxy optimum over every candidate, within kRelativeGap
    int no_layout = 0;      // shapes whose bound shows that no layout fits
    int pruned = 0;         // closed by their bound against the incumbent, no MILP
    int optimal = 0;        // MILP solved to proven optimality
    int closed = 0;         // MILP proved nothing better than the incumbent (infeasible under it)
    int cut = 0;            // MILP stopped by the time limit, or never started for lack of time
                            // (a shape cut by its share of the time is tried again with what
                            // the others left, before it counts here)
    int unbounded = 0;      // no start and no incumbent to bound the MILP: not solved
    long long variables = 0, rows = 0;  // of the largest MILP
};

// Called with every shape's best layout found (topology cluster per stage * dp + replica).
using LayoutSink = std::function<void(size_t shape, const std::vector<int>& cells)>;

SearchResult search_shapes(const std::vector<ShapeCandidate>& shapes, std::chrono::steady_clock::time_point deadline,
                           const SearchOptions& options, const LayoutSink& sink);

}  // namespace spiderflow::global_ilp
