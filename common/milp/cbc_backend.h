// The COIN-OR Cbc backend for milp::Model (CbcModel over OsiClpSolverInterface). Only this file
// pair includes Cbc headers. Safe to call from several threads at once: each call builds its own
// solver objects.
#pragma once

#include "common/milp/model.h"

namespace spiderflow::milp {

// Solves with Cbc within options.time_limit_s (wall clock) and options.relative_gap; silent
// unless options.log. Never throws for a solver failure: status says what happened.
SolveResult solve(const Model& model, const SolveOptions& options = {});

}  // namespace spiderflow::milp
