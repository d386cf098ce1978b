// A small solver-independent MILP model: variables with bounds and integrality, linear rows with
// bounds, a linear objective to minimise. Backends (cbc_backend.h) read it; it knows none of them,
// so planners build models without touching solver headers.
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace spiderflow::milp {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Variable {
    double lower = 0;
    double upper = kInf;
    bool integer = false;
    std::string name;
};

struct Term {
    int var = -1;
    double coef = 0;
};

// lower <= sum(coef * x[var]) <= upper; use -kInf / kInf for a one-sided row.
struct Row {
    double lower = -kInf;
    double upper = kInf;
    std::vector<Term> terms;
    std::string name;
};

class Model {
public:
    int add_variable(double lower, double upper, bool integer, std::string name = {});
    int add_continuous(double lower, double upper, std::string name = {}) {
        return add_variable(lower, upper, false, std::move(name));
    }
    int add_integer(double lower, double upper, std::string name = {}) {
        return add_variable(lower, upper, true, std::move(name));
    }
    int add_binary(std::string name = {}) { return add_variable(0, 1, true, std::move(name)); }

    // Duplicate var indices inside one row are summed. Throws std::out_of_range on a bad index.
    int add_row(double lower, double upper, std::vector<Term> terms, std::string name = {});
    int add_less_equal(std::vector<Term> terms, double upper, std::string name = {}) {
        return add_row(-kInf, upper, std::move(terms), std::move(name));
    }
    int add_greater_equal(std::vector<Term> terms, double lower, std::string name = {}) {
        return add_row(lower, kInf, std::move(terms), std::move(name));
    }
    int add_equal(std::vector<Term> terms, double value, std::string name = {}) {
        return add_row(value, value, std::move(terms), std::move(name));
    }

    // Objective: minimise sum(objective coef * x) + offset.
    void set_objective(int var, double coef);
    void set_objective_offset(double offset) { offset_ = offset; }

    int num_variables() const { return static_cast<int>(vars_.size()); }
    int num_rows() const { return static_cast<int>(rows_.size()); }
    const std::vector<Variable>& variables() const { return vars_; }
    const std::vector<Row>& rows() const { return rows_; }
    const std::vector<double>& objective() const { return obj_; }
    double objective_offset() const { return offset_; }

    // Value of the objective and worst row/bound/integrality violation at a point; for tests
    // and for checking what a backend returned.
    double evaluate(const std::vector<double>& values) const;
    double max_violation(const std::vector<double>& values) const;

private:
    std::vector<Variable> vars_;
    std::vector<double> obj_;
    std::vector<Row> rows_;
    double offset_ = 0;
};

enum class SolveStatus {
    optimal,                 // proven optimal within relative_gap
    feasible_with_gap,       // a solution, but a limit stopped the proof
    infeasible,              // proven: no solution exists
    limit_without_solution,  // a limit stopped the search before any solution
    unbounded,
    error,
};

const char* to_string(SolveStatus s);

// Every solve has a time limit and a gap: a planner must never hang on a hard instance. The limit
// bounds the whole solve, the root LP included (its wall time, on a loaded machine too).
struct SolveOptions {
    double time_limit_s = 10.0;
    double relative_gap = 1e-4;
    int threads = 1;
    bool log = false;
    // Only solutions whose objective (offset included) is below cutoff are wanted: branch and
    // bound drops every node whose bound reaches it. When none exists the status is infeasible,
    // which then proves "nothing better than cutoff" (a caller's incumbent from elsewhere).
    double cutoff = kInf;
};

struct SolveResult {
    SolveStatus status = SolveStatus::error;
    double objective = kInf;        // of the best solution, offset included
    double best_bound = -kInf;      // proven lower bound, offset included
    std::vector<double> values;     // empty unless a solution was found
    double seconds = 0;

    bool has_solution() const {
        return status == SolveStatus::optimal || status == SolveStatus::feasible_with_gap;
    }
};

}  // namespace spiderflow::milp
