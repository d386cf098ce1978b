#include "common/milp/model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace spiderflow::milp {

int Model::add_variable(double lower, double upper, bool integer, std::string name) {
    vars_.push_back(Variable{lower, upper, integer, std::move(name)});
    obj_.push_back(0.0);
    return static_cast<int>(vars_.size()) - 1;
}

int Model::add_row(double lower, double upper, std::vector<Term> terms, std::string name) {
    // Merge duplicates so backends receive a clean sparse row (CoinPackedMatrix rejects them).
    std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.var < b.var; });
    std::vector<Term> merged;
    for (const Term& t : terms) {
        if (t.var < 0 || t.var >= num_variables()) throw std::out_of_range("milp: row term names no variable");
        if (!merged.empty() && merged.back().var == t.var)
            merged.back().coef += t.coef;
        else
            merged.push_back(t);
    }
    std::erase_if(merged, [](const Term& t) { return t.coef == 0.0; });
    rows_.push_back(Row{lower, upper, std::move(merged), std::move(name)});
    return static_cast<int>(rows_.size()) - 1;
}

void Model::set_objective(int var, double coef) {
    if (var < 0 || var >= num_variables()) throw std::out_of_range("milp: objective names no variable");
    obj_[static_cast<size_t>(var)] = coef;
}

double Model::evaluate(const std::vector<double>& values) const {
    double sum = offset_;
    for (size_t i = 0; i < obj_.size() && i < values.size(); ++i) sum += obj_[i] * values[i];
    return sum;
}

double Model::max_violation(const std::vector<double>& values) const {
    if (values.size() != vars_.size()) return kInf;
    double worst = 0;
    for (size_t i = 0; i < vars_.size(); ++i) {
        const double x = values[i];
        worst = std::max({worst, vars_[i].lower - x, x - vars_[i].upper});
        if (vars_[i].integer) worst = std::max(worst, std::fabs(x - std::round(x)));
    }
    for (const Row& r : rows_) {
        double lhs = 0;
        for (const Term& t : r.terms) lhs += t.coef * values[static_cast<size_t>(t.var)];
        worst = std::max({worst, r.lower - lhs, lhs - r.upper});
    }
    return worst;
}

const char* to_string(SolveStatus s) {
    switch (s) {
        case SolveStatus::optimal: return "optimal";
        case SolveStatus::feasible_with_gap: return "feasible_with_gap";
        case SolveStatus::infeasible: return "infeasible";
        case SolveStatus::limit_without_solution: return "limit_without_solution";
        case SolveStatus::unbounded: return "unbounded";
        case SolveStatus::error: return "error";
    }
    return "error";
}

}  // namespace spiderflow::milp
