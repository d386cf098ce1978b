#include "common/milp/cbc_backend.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <vector>

#include <CbcHeuristic.hpp>
#include <CbcHeuristicFPump.hpp>
#include <CbcHeuristicLocal.hpp>
#include <CbcModel.hpp>
#include <CglClique.hpp>
#include <CglGomory.hpp>
#include <CglKnapsackCover.hpp>
#include <CglMixedIntegerRounding2.hpp>
#include <CglProbing.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

namespace spiderflow::milp {
namespace {

double coin_bound(double v, double inf) {
    if (std::isinf(v)) return v > 0 ? inf : -inf;
    return v;
}

// A model without variables has nothing for Cbc to do (and Cbc dislikes empty matrices).
SolveResult solve_empty(const Model& model) {
    SolveResult r;
    for (const Row& row : model.rows())
        if (row.lower > 0 || row.upper < 0) {
            r.status = SolveStatus::infeasible;
            return r;
        }
    r.status = SolveStatus::optimal;
    r.objective = r.best_bound = model.objective_offset();
    return r;
}

void add_default_strength(CbcModel& cbc, bool has_start) {
    // Plain CbcModel has no cuts or heuristics; these are the usual cheap ones that make
    // small assignment/bin-style models (TPA level 2) close quickly.
    CglProbing probing;
    probing.setUsingObjective(1);
    probing.setMaxPass(1);
    probing.setMaxProbe(10);
    probing.setMaxLook(10);
    cbc.addCutGenerator(&probing, -1, "Probing");
    CglGomory gomory;
    gomory.setLimit(100);
    cbc.addCutGenerator(&gomory, -1, "Gomory");
    CglKnapsackCover knapsack;
    cbc.addCutGenerator(&knapsack, -1, "KnapsackCover");
    CglMixedIntegerRounding2 mir;
    cbc.addCutGenerator(&mir, -1, "MIR2");
    CglClique clique;
    clique.setStarCliqueReport(false);
    clique.setRowCliqueReport(false);
    cbc.addCutGenerator(&clique, -1, "Clique");

    CbcRounding rounding(cbc);
    cbc.addHeuristic(&rounding);
    // The feasibility pump looks for a first solution; a caller's start point already is one,
    // and on large models the pump is what ignores the time limit longest.
    CbcHeuristicFPump pump(cbc);
    if (!has_start) cbc.addHeuristic(&pump);
    CbcHeuristicLocal local(cbc);
    cbc.addHeuristic(&local);
}

SolveResult run_cbc(const Model& model, const SolveOptions& options, const std::vector<double>& initial) {
    const auto start = std::chrono::steady_clock::now();
    OsiClpSolverInterface lp;
    const double inf = lp.getInfinity();
    const int n = model.num_variables();

    CoinPackedMatrix matrix(false, 0, 0);  // row-ordered
    matrix.setDimensions(0, n);
    std::vector<double> row_lo, row_hi;
    for (const Row& row : model.rows()) {
        std::vector<int> idx;
        std::vector<double> val;
        for (const Term& t : row.terms) {
            idx.push_back(t.var);
            val.push_back(t.coef);
        }
        matrix.appendRow(static_cast<int>(idx.size()), idx.data(), val.data());
        row_lo.push_back(coin_bound(row.lower, inf));
        row_hi.push_back(coin_bound(row.upper, inf));
    }
    std::vector<double> col_lo, col_hi;
    for (const Variable& v : model.variables()) {
        col_lo.push_back(coin_bound(v.lower, inf));
        col_hi.push_back(coin_bound(v.upper, inf));
    }
    lp.loadProblem(matrix, col_lo.data(), col_hi.data(), model.objective().data(), row_lo.data(), row_hi.data());
    for (int i = 0; i < n; ++i)
        if (model.variables()[static_cast<size_t>(i)].integer) lp.setInteger(i);
    if (!options.log) {
        lp.messageHandler()->setLogLevel(0);
        lp.setHintParam(OsiDoReducePrint, true, OsiHintTry);
    }

    // The limit covers everything from the start: Clp's root LP honours a wall-clock limit of its
    // own, and branch and bound gets what the LP left.
    const double limit_s = options.time_limit_s > 0 ? options.time_limit_s : 10.0;
    auto left_s = [&] {
        return limit_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    // A start at or above the cutoff is no solution the caller wants: it is ignored.
    const bool usable_start = static_cast<int>(initial.size()) == n && model.max_violation(initial) <= 1e-6;
    const double start_value = usable_start ? model.evaluate(initial) : kInf;
    const bool has_start = usable_start && start_value < options.cutoff;
    const double start_objective = has_start ? start_value : kInf;

    CbcModel cbc(lp);  // clones lp
    cbc.setLogLevel(options.log ? 1 : 0);
    if (!options.log) cbc.solver()->messageHandler()->setLogLevel(0);
    if (auto* clp = dynamic_cast<OsiClpSolverInterface*>(cbc.solver())) clp->getModelPtr()->setMaximumWallSeconds(std::max(0.01, left_s()));
    cbc.setUseElapsedTime(true);
    cbc.setAllowableFractionGap(options.relative_gap >= 0 ? options.relative_gap : 1e-4);
    if (options.threads > 1) cbc.setNumberThreads(options.threads);
    add_default_strength(cbc, has_start);
    // Root cut passes are not interrupted by the time limit: fewer of them on large models.
    if (model.num_rows() > 2000) cbc.setMaximumCutPassesAtRoot(5);

    cbc.initialSolve();
    const bool root_solved = cbc.solver()->isProvenOptimal();
    const bool has_cutoff = options.cutoff < kInf;
    if (root_solved && has_cutoff && cbc.solver()->getObjValue() + model.objective_offset() >= options.cutoff) {
        // The LP relaxation already reaches the cutoff: no integer point can be below it.
        SolveResult r;
        r.status = SolveStatus::infeasible;
        r.best_bound = cbc.solver()->getObjValue() + model.objective_offset();
        return r;
    }
    if (!root_solved && !cbc.solver()->isProvenPrimalInfeasible() && !cbc.solver()->isProvenDualInfeasible()) {
        // The root LP itself ran out of time: no proof of anything; the start point, if any.
        SolveResult r;
        if (has_start) {
            r.status = SolveStatus::feasible_with_gap;
            r.values = initial;
            r.objective = start_objective;
        } else {
            r.status = SolveStatus::limit_without_solution;
        }
        return r;
    }
    if (has_start && root_solved)
        cbc.setBestSolution(initial.data(), n, start_objective - model.objective_offset(), false);
    if (has_cutoff) cbc.setCutoff(std::min(cbc.getCutoff(), options.cutoff - model.objective_offset()));
    cbc.setMaximumSeconds(std::max(0.01, left_s()));
    // Node LPs must not inherit the root's limit (Cbc would take a cut-off LP for a dead node);
    // Cbc's own limit bounds branch and bound.
    if (auto* clp = dynamic_cast<OsiClpSolverInterface*>(cbc.solver())) clp->getModelPtr()->setMaximumWallSeconds(-1.0);
    cbc.branchAndBound();

    SolveResult r;
    const double offset = model.objective_offset();
    // Cbc keeps a solution array even when it rejected the one it was given (objective 1e50).
    const double* best = cbc.bestSolution();
    const bool has_solution = best != nullptr && cbc.getObjValue() < 1e40;
    if (has_solution) {
        r.values.assign(best, best + n);
        r.objective = cbc.getObjValue() + offset;
    }
    r.best_bound = cbc.getBestPossibleObjValue() + offset;

    if (cbc.isProvenOptimal() && has_solution) {
        r.status = SolveStatus::optimal;
        r.best_bound = std::min(r.best_bound, r.objective);
    } else if (cbc.isProvenInfeasible() && !has_solution) {
        r.status = SolveStatus::infeasible;
    } else if (cbc.isContinuousUnbounded() || cbc.secondaryStatus() == 7) {
        r.status = SolveStatus::unbounded;
        r.values.clear();
        r.objective = -kInf;
    } else if (has_solution) {
        // Stopped by a limit (or a gap proof that Cbc reports as a limit): a solution with a gap.
        const double gap = std::fabs(r.objective - r.best_bound) / std::max(1e-10, std::fabs(r.objective));
        r.status = gap <= options.relative_gap + 1e-12 ? SolveStatus::optimal : SolveStatus::feasible_with_gap;
    } else if (has_start) {
        // Stopped before Cbc accepted or improved the start: the start, unproven.
        r.status = SolveStatus::feasible_with_gap;
        r.values = initial;
        r.objective = start_objective;
    } else if (cbc.isSecondsLimitReached() || cbc.isNodeLimitReached() || cbc.status() == 1) {
        r.status = SolveStatus::limit_without_solution;
    } else {
        r.status = SolveStatus::error;
    }
    return r;
}

}  // namespace

SolveResult solve(const Model& model, const SolveOptions& options, const std::vector<double>& start_point) {
    const auto start = std::chrono::steady_clock::now();
    SolveResult r;
    try {
        r = model.num_variables() == 0 ? solve_empty(model) : run_cbc(model, options, start_point);
    } catch (const std::exception&) {
        r = SolveResult{};
        r.status = SolveStatus::error;
    } catch (...) {
        r = SolveResult{};
        r.status = SolveStatus::error;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

}  // namespace spiderflow::milp
