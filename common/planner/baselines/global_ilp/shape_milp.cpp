#include "common/planner/baselines/global_ilp/shape_milp.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "common/milp/cbc_backend.h"

namespace spiderflow::global_ilp {
namespace {

using Clock = std::chrono::steady_clock;

size_t at(int i) { return static_cast<size_t>(i); }

struct Vars {
    std::vector<std::vector<int>> n, z;                // [stage][position], -1 = not in the model
    std::vector<std::map<std::pair<int, int>, int>> f;  // [boundary] (a, b) -> flow variable
    int t_comp = -1, t_pp = -1, t_dp = -1;
};

// The model's point for a layout: what CBC gets as its start.
std::vector<double> point_of(const ShapeCosts& c, const milp::Model& model, const Vars& v, const std::vector<int>& cells) {
    const int pp = c.pp(), dp = c.dp();
    std::vector<double> x(at(model.num_variables()), 0.0);
    double t_comp = 0, t_dp = 0;
    for (int s = 0; s < pp; ++s) {
        for (int r = 0; r < dp; ++r) x[at(v.n[at(s)][at(cells[at(s * dp + r)])])] += 1;
        std::vector<int> used;
        for (int p = 0; p < c.k(); ++p)
            if (v.n[at(s)][at(p)] >= 0 && x[at(v.n[at(s)][at(p)])] > 0) {
                x[at(v.z[at(s)][at(p)])] = 1;
                t_comp = std::max(t_comp, c.comp[at(s)][at(p)]);
                for (int q : used) t_dp = std::max(t_dp, c.dp_pair(s, q, p));
                used.push_back(p);
            }
    }
    std::map<std::pair<int, int>, double> load;
    for (int s = 0; s + 1 < pp; ++s)
        for (int r = 0; r < dp; ++r) {
            const int a = cells[at(s * dp + r)], b = cells[at((s + 1) * dp + r)];
            x[at(v.f[at(s)].at({a, b}))] += 1;
            if (a != b) load[std::minmax(a, b)] += c.pipe[at(a)][at(b)];
        }
    double t_pp = 0;
    for (const auto& [ab, l] : load) t_pp = std::max(t_pp, l);
    x[at(v.t_comp)] = t_comp;
    x[at(v.t_pp)] = t_pp;
    x[at(v.t_dp)] = t_dp;
    return x;
}

// Whole pipelines from integral flows: each replica at stage s on a continues on a b with flow
// left. Empty when the values do not add up (never for a feasible point).
std::vector<int> cells_of(const ShapeCosts& c, const Vars& v, const std::vector<double>& x) {
    const int pp = c.pp(), dp = c.dp(), k = c.k();
    auto val = [&](int var) { return var < 0 ? 0 : static_cast<int>(std::lround(x[at(var)])); };
    std::vector<int> cur;
    for (int p = 0; p < k; ++p)
        for (int i = 0; i < val(v.n[0][at(p)]); ++i) cur.push_back(p);
    if (static_cast<int>(cur.size()) != dp) return {};
    std::vector<int> cells(at(pp * dp), -1);
    for (int s = 0; s < pp; ++s) {
        for (int r = 0; r < dp; ++r) cells[at(s * dp + r)] = cur[at(r)];
        if (s + 1 == pp) break;
        std::map<std::pair<int, int>, int> flow;
        for (const auto& [ab, var] : v.f[at(s)]) flow[ab] = val(var);
        for (int r = 0; r < dp; ++r) {
            auto it = flow.lower_bound({cur[at(r)], -1});
            while (it != flow.end() && it->first.first == cur[at(r)] && it->second == 0) ++it;
            if (it == flow.end() || it->first.first != cur[at(r)]) return {};
            --it->second;
            cur[at(r)] = it->first.second;
        }
    }
    return cells;
}

std::vector<int> to_topology(const ShapeCosts& c, std::vector<int> cells) {
    for (int& p : cells) p = c.clusters[at(p)];
    return cells;
}

}  // namespace

ShapeSolve solve_shape(const ShapeCosts& c, const StartLayout& start, const ShapeBound& bound, double cutoff,
                       Clock::time_point deadline) {
    ShapeSolve out;
    const bool has_start = !start.cells.empty();
    if (std::isinf(bound.total)) {
        // Not even the bound's relaxation fits: no layout of this shape exists.
        out.status = milp::SolveStatus::infeasible;
        return out;
    }
    // What a solution must beat: the start, or a better layout found elsewhere.
    const double beat = std::min(cutoff, has_start ? start.objective : milp::kInf);
    out.status = milp::SolveStatus::limit_without_solution;
    if (std::isinf(beat)) return out;  // nothing bounds the model: too big for any budget
    out.objective = milp::kInf;
    if (has_start) {
        out.cells = to_topology(c, start.cells);
        out.objective = start.objective;
        out.status = milp::SolveStatus::feasible_with_gap;
    }
    const int pp = c.pp(), dp = c.dp(), k = c.k();
    // Only what can beat it: every term of the objective is at most its value.
    const double ub = beat * (1 + 1e-9) + 1e-12;
    // Each term may use only what the other two terms' lower bounds leave of it.
    const double below = 1 - 1e-9;
    const double comp_floor = c.comp_weight * bound.comp * below, pipe_floor = bound.pipe * below,
                 ring_floor = c.dp_weight * bound.ring * below;
    const double comp_room = ub - pipe_floor - ring_floor, pipe_room = ub - comp_floor - ring_floor,
                 ring_room = ub - comp_floor - pipe_floor;
    auto out_of_time = [&] { return Clock::now() >= deadline; };

    milp::Model model;
    Vars v;
    v.n.assign(at(pp), std::vector<int>(at(k), -1));
    v.z = v.n;
    // Every layout's time terms reach the shape's bounds (a hair less: rounding).
    v.t_comp = model.add_continuous(bound.comp * below, milp::kInf, "T_comp");
    v.t_pp = model.add_continuous(bound.pipe * below, milp::kInf, "T_pp");
    v.t_dp = model.add_continuous(bound.ring * below, milp::kInf, "T_dp");
    model.set_objective(v.t_comp, c.comp_weight);
    model.set_objective(v.t_pp, 1.0);
    model.set_objective(v.t_dp, c.dp_weight);

    std::vector<double> cap_terms(at(k), 0.0);
    for (int s = 0; s < pp; ++s) {
        std::vector<milp::Term> replicas, mean_comp{{v.t_comp, 1}};
        for (int p = 0; p < k; ++p) {
            const double comp = c.comp[at(s)][at(p)];
            const int cap = std::min(dp, c.slots[at(p)]);
            if (cap == 0 || c.comp_weight * comp > comp_room) continue;
            const int nv = v.n[at(s)][at(p)] = model.add_integer(0, cap);
            const int zv = v.z[at(s)][at(p)] = model.add_binary();
            cap_terms[at(p)] += cap;
            replicas.push_back({nv, 1});
            model.add_less_equal({{nv, 1}, {zv, -static_cast<double>(cap)}}, 0);  // n <= cap z
            model.add_greater_equal({{v.t_comp, 1}, {zv, -comp}}, 0);            // the slowest cluster used
            mean_comp.push_back({nv, -comp / dp});  // never faster than the replicas' mean
        }
        model.add_equal(replicas, dp);
        model.add_greater_equal(mean_comp, 0);
    }
    for (int p = 0; p < k; ++p) {
        if (cap_terms[at(p)] <= c.slots[at(p)]) continue;  // cannot overfill anyway
        std::vector<milp::Term> use;
        for (int s = 0; s < pp; ++s)
            if (v.n[at(s)][at(p)] >= 0) use.push_back({v.n[at(s)][at(p)], 1});
        model.add_less_equal(use, c.slots[at(p)]);
    }
    if (out_of_time()) return out;

    // Pipeline continuation between stages s and s+1, only over pairs one crossing of which
    // stays within the bound.
    v.f.resize(at(std::max(0, pp - 1)));
    std::map<std::pair<int, int>, std::vector<milp::Term>> link_load;
    for (int s = 0; s + 1 < pp; ++s) {
        std::vector<std::vector<milp::Term>> out_rows(at(k)), in_rows(at(k));
        for (int a = 0; a < k; ++a) {
            if (v.n[at(s)][at(a)] < 0) continue;
            for (int b = 0; b < k; ++b) {
                if (v.n[at(s + 1)][at(b)] < 0 || c.pipe[at(a)][at(b)] > pipe_room) continue;
                const int fv = model.add_integer(0, std::min({dp, c.slots[at(a)], c.slots[at(b)]}));
                v.f[at(s)][{a, b}] = fv;
                out_rows[at(a)].push_back({fv, 1});
                in_rows[at(b)].push_back({fv, 1});
                if (a != b) link_load[std::minmax(a, b)].push_back({fv, 1});
            }
        }
        for (int p = 0; p < k; ++p) {
            if (v.n[at(s)][at(p)] >= 0) {
                out_rows[at(p)].push_back({v.n[at(s)][at(p)], -1});
                model.add_equal(out_rows[at(p)], 0);
            }
            if (v.n[at(s + 1)][at(p)] >= 0) {
                in_rows[at(p)].push_back({v.n[at(s + 1)][at(p)], -1});
                model.add_equal(in_rows[at(p)], 0);
            }
        }
        if (out_of_time()) return out;
    }
    for (const auto& [ab, terms] : link_load) {
        std::vector<milp::Term> row{{v.t_pp, 1}};
        for (const milp::Term& t : terms) row.push_back({t.var, -c.pipe[at(ab.first)][at(ab.second)]});
        model.add_greater_equal(row, 0);
    }

    // DP across clusters: a stage using a and b pays its all-reduce over their link
    // (T_dp >= cost * (z_a + z_b - 1)); pairs too slow or unreachable may not share a stage.
    for (int s = 0; s < pp; ++s) {
        std::vector<int> present;
        for (int p = 0; p < k; ++p)
            if (v.z[at(s)][at(p)] >= 0) present.push_back(p);
        std::vector<std::pair<int, int>> conflicts, priced;
        for (size_t i = 0; i < present.size(); ++i)
            for (size_t j = i + 1; j < present.size(); ++j) {
                const int a = present[i], b = present[j];
                const double cost = c.dp_pair(s, a, b);
                if (std::isinf(cost) || c.dp_weight * cost > ring_room) conflicts.emplace_back(a, b);
                else if (c.dp_weight > 0 && cost > 0) priced.emplace_back(a, b);
            }
        const size_t pairs = present.size() * (present.size() - 1) / 2;
        if (pairs > 1 && conflicts.size() == pairs) {
            // Every pair conflicts: one clique row says the same as all of them, and tighter.
            std::vector<milp::Term> row;
            for (int p : present) row.push_back({v.z[at(s)][at(p)], 1});
            model.add_less_equal(row, 1);
        } else {
            // One row per cluster instead of one per pair (k rather than k^2/2 rows): when a is
            // used, none of its conflicting partners may be: deg * z_a + sum z_b <= deg.
            std::map<int, std::vector<int>> partners;
            for (const auto& [a, b] : conflicts) partners[a].push_back(b);
            for (const auto& [a, bs] : partners) {
                const double deg = static_cast<double>(bs.size());
                std::vector<milp::Term> row{{v.z[at(s)][at(a)], deg}};
                for (int b : bs) row.push_back({v.z[at(s)][at(b)], 1});
                model.add_less_equal(row, deg);
            }
        }
        for (const auto& [a, b] : priced) {
            const double cost = c.dp_pair(s, a, b);
            model.add_greater_equal({{v.t_dp, 1}, {v.z[at(s)][at(a)], -cost}, {v.z[at(s)][at(b)], -cost}}, -cost);
        }
        if (out_of_time()) return out;
    }

    out.variables = model.num_variables();
    out.rows = model.num_rows();
    milp::SolveOptions opt;
    opt.time_limit_s = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (opt.time_limit_s <= 0) return out;
    opt.relative_gap = kRelativeGap;
    if (!std::isinf(cutoff)) opt.cutoff = cutoff;
    std::vector<double> first;
    // The start is CBC's first incumbent only when it is what bounded the model (a start above
    // the cutoff may use variables the cutoff removed, and CBC would ignore it anyway).
    if (has_start && start.objective <= cutoff) {
        try {
            first = point_of(c, model, v, start.cells);
        } catch (const std::out_of_range&) {
            first.clear();  // not representable (rounding at the bound): CBC starts cold
        }
    }
    const milp::SolveResult r = milp::solve(model, opt, first);
    out.status = r.status;
    if (!r.has_solution()) return out;  // the start layout stays, with CBC's status
    const std::vector<int> cells = cells_of(c, v, r.values);
    if (cells.empty()) return out;
    const double value = proxy_objective(c, cells);
    if (value <= out.objective) {
        out.cells = to_topology(c, cells);
        out.objective = value;
    }
    return out;
}

}  // namespace spiderflow::global_ilp
