// The COIN-OR Cbc backend for milp::Model (CbcModel over OsiClpSolverInterface). Only this file
// pair includes Cbc headers. Safe to call from several threads at once: each call builds its own
// solver objects.
#pragma once

#include <vector>

#include "common/milp/model.h"

namespace spiderflow::milp {

// Solves with Cbc within options.time_limit_s (wall clock, the root LP included) and
// options.relative_gap; silent unless options.log. Never throws for a solver failure: status
// says what happened.
// start: a known feasible point (one value per variable), e.g. from a heuristic; Cbc takes it
// as its first incumbent, so it only has to prove or improve it. Ignored when it violates the
// model. When the limit stops Cbc before anything better, it comes back as feasible_with_gap.
SolveResult solve(const Model& model, const SolveOptions& options = {}, const std::vector<double>& start = {});

}  // namespace spiderflow::milp
