// One shape's MILP over all eligible clusters and all stages (see global_ilp.h for the model).
// Integer replica counts n[s][c], binaries z[s][c] for "stage s uses cluster c", integer
// pipeline transport flows f[s][a][b] from stage s on a to stage s+1 on b, and the three time
// terms. The start layout's proxy value UB bounds which variables can matter, exactly: a
// cluster whose compute alone makes a stage cost more than UB gets no variables for that stage,
// a pair whose single crossing costs more than UB gets no flow, and a pair whose all-reduce
// costs more than UB may not serve one stage together (a conflict row instead of a T_dp row);
// "more than UB" counts the other two terms at their lower bounds (shape_bound.h).
// Every solution better than the start survives these cuts, so the optimum is the optimum of
// the full model. CBC starts from the start layout.
// Across shapes (shape_search.h) a layout of another shape may already be better than this
// shape's start: its value, `cutoff`, then bounds the variables instead and is CBC's objective
// cutoff, so the MILP only has to show that nothing here beats it (status infeasible: proven).
// The shape's lower bounds (shape_bound.h) are the time variables' lower bounds.
#pragma once

#include <chrono>
#include <vector>

#include "common/milp/model.h"
#include "common/planner/baselines/global_ilp/shape_bound.h"
#include "common/planner/baselines/global_ilp/shape_costs.h"
#include "common/planner/baselines/global_ilp/start_layout.h"

namespace spiderflow::global_ilp {

// The proof's tolerance: a shape is solved when CBC's gap is within it, and closed by a better
// layout found elsewhere when its bound is within it of that layout (shape_search.h).
constexpr double kRelativeGap = 1e-4;

struct ShapeSolve {
    milp::SolveStatus status = milp::SolveStatus::error;
    std::vector<int> cells;  // topology cluster per (stage * dp + replica); empty without a solution
    double objective = 0;    // proxy value of cells
    int variables = 0;
    int rows = 0;
};

// Builds and solves the MILP with CBC within `deadline` (model building included). Without a
// better CBC solution the start layout comes back (status says whether it is proven optimal,
// infeasible: nothing below min(start, cutoff)). A shape without a start needs a finite cutoff;
// without one nothing bounds its model and it comes back unsolved (limit_without_solution).
ShapeSolve solve_shape(const ShapeCosts& c, const StartLayout& start, const ShapeBound& bound, double cutoff,
                       std::chrono::steady_clock::time_point deadline);

}  // namespace spiderflow::global_ilp
