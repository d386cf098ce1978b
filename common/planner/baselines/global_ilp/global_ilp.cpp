#include "common/planner/baselines/global_ilp/global_ilp.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "common/cost/flops.h"
#include "common/milp/cbc_backend.h"
#include "common/milp/model.h"
#include "common/plan/plan_traffic.h"
#include "common/planner/baselines/common/evaluator.h"

namespace spiderflow {
namespace {

struct ShapeSolve {
    milp::SolveStatus status = milp::SolveStatus::error;
    std::vector<int> cells;  // empty without a solution
    int variables = 0;
    int rows = 0;
};

ShapeSolve solve_shape(baselines::Evaluator& eval, const Shape& sh, double time_limit_s) {
    ShapeSolve out;
    const Topology& topo = eval.topology();
    const PlanRequest& req = eval.request();
    const std::vector<int> cl = eval.clusters_by_compute(sh.tp);
    const int k = static_cast<int>(cl.size());
    const int pp = sh.pp, dp = sh.dp;
    const int m = req.job.global_batch / (dp * sh.micro_batch);
    if (k == 0) return out;

    // Per-cluster speed: mean of the fastest slots a stage's replicas would get.
    std::map<int, double> flops;
    const auto& invs = eval.inventories(sh.tp);
    for (size_t i = 0; i < eval.eligible().size(); ++i) flops[eval.eligible()[i]] = invs[i].best_flops(dp);

    // Volumes from the plan layer, on a skeleton plan of this shape with an even layer split.
    Plan skel;
    skel.job = req.job;
    skel.tp = sh.tp;
    skel.pp = pp;
    skel.dp = dp;
    skel.micro_batch = sh.micro_batch;
    skel.num_micro_batches = m;
    for (int s = 0; s < pp; ++s) skel.layers_per_stage.push_back(req.job.model.layers / pp + (s < req.job.model.layers % pp ? 1 : 0));
    const double boundary = pp_boundary_bytes(skel);
    const double passes = req.job.recompute ? 4.0 : 3.0;  // forward + backward (+ recompute)
    const double per_layer_flops = passes * cost::layer_forward_flops_per_token(req.job.model, req.job.seq_len) *
                                   static_cast<double>(sh.micro_batch) * m * req.job.seq_len / sh.tp;
    const double dp_exposed = 1.0 - eval.cost().options().dp_overlap;

    milp::Model model;
    std::vector<std::vector<int>> n(static_cast<size_t>(pp)), z(static_cast<size_t>(pp));
    for (int s = 0; s < pp; ++s)
        for (int c = 0; c < k; ++c) {
            const int cap = std::min(dp, eval.slots_of(sh.tp, cl[static_cast<size_t>(c)]));
            n[static_cast<size_t>(s)].push_back(model.add_integer(0, cap));
            z[static_cast<size_t>(s)].push_back(model.add_binary());
        }
    const int t_comp = model.add_continuous(0, milp::kInf, "T_comp");
    const int t_pp = model.add_continuous(0, milp::kInf, "T_pp");
    const int t_dp = model.add_continuous(0, milp::kInf, "T_dp");
    model.set_objective(t_comp, 1.0 + static_cast<double>(pp - 1) / m);
    model.set_objective(t_pp, 1.0);
    model.set_objective(t_dp, dp_exposed);

    for (int s = 0; s < pp; ++s) {
        std::vector<milp::Term> sum;
        for (int c = 0; c < k; ++c) {
            const int nv = n[static_cast<size_t>(s)][static_cast<size_t>(c)];
            const int zv = z[static_cast<size_t>(s)][static_cast<size_t>(c)];
            sum.push_back({nv, 1});
            model.add_less_equal({{nv, 1}, {zv, -static_cast<double>(dp)}}, 0);  // n <= dp z
            const double f = flops[cl[static_cast<size_t>(c)]];
            const double comp = f > 0 ? skel.layers_per_stage[static_cast<size_t>(s)] * per_layer_flops / f : 1e9;
            model.add_greater_equal({{t_comp, 1}, {zv, -comp}}, 0);
        }
        model.add_equal(sum, dp);
    }
    for (int c = 0; c < k; ++c) {
        std::vector<milp::Term> use;
        for (int s = 0; s < pp; ++s) use.push_back({n[static_cast<size_t>(s)][static_cast<size_t>(c)], 1});
        model.add_less_equal(use, eval.slots_of(sh.tp, cl[static_cast<size_t>(c)]));
    }

    // Pipeline continuation: f[s][a][b] replicas go from cluster a at stage s to b at s+1.
    std::vector<std::vector<std::vector<int>>> f(static_cast<size_t>(std::max(0, pp - 1)));
    std::map<std::pair<int, int>, std::vector<milp::Term>> link_load;
    for (int s = 0; s + 1 < pp; ++s) {
        auto& fs = f[static_cast<size_t>(s)];
        fs.assign(static_cast<size_t>(k), std::vector<int>(static_cast<size_t>(k), -1));
        for (int a = 0; a < k; ++a)
            for (int b = 0; b < k; ++b) {
                const bool reachable = a == b || topo.path(cl[static_cast<size_t>(a)], cl[static_cast<size_t>(b)]).reachable();
                fs[static_cast<size_t>(a)][static_cast<size_t>(b)] = model.add_continuous(0, reachable ? dp : 0);
                if (a != b && reachable) link_load[std::minmax(a, b)].push_back({fs[static_cast<size_t>(a)][static_cast<size_t>(b)], 1});
            }
        for (int a = 0; a < k; ++a) {
            std::vector<milp::Term> out_row{{n[static_cast<size_t>(s)][static_cast<size_t>(a)], -1}};
            std::vector<milp::Term> in_row{{n[static_cast<size_t>(s + 1)][static_cast<size_t>(a)], -1}};
            for (int b = 0; b < k; ++b) {
                out_row.push_back({fs[static_cast<size_t>(a)][static_cast<size_t>(b)], 1});
                in_row.push_back({fs[static_cast<size_t>(b)][static_cast<size_t>(a)], 1});
            }
            model.add_equal(out_row, 0);
            model.add_equal(in_row, 0);
        }
    }
    for (auto& [ab, terms] : link_load) {
        const PathInfo& p = topo.path(cl[static_cast<size_t>(ab.first)], cl[static_cast<size_t>(ab.second)]);
        const double per_replica = boundary / p.bandwidth_Bps + 2.0 * m * p.latency_s;
        std::vector<milp::Term> row{{t_pp, 1}};
        for (const milp::Term& t : terms) row.push_back({t.var, -per_replica});
        model.add_greater_equal(row, 0);
    }

    // DP across clusters: a stage using clusters a and b pays its all-reduce over their link.
    for (int s = 0; s < pp; ++s) {
        const double grad = stage_gradient_bytes(skel, s);
        for (int a = 0; a < k; ++a)
            for (int b = a + 1; b < k; ++b) {
                const int za = z[static_cast<size_t>(s)][static_cast<size_t>(a)];
                const int zb = z[static_cast<size_t>(s)][static_cast<size_t>(b)];
                const PathInfo& p = topo.path(cl[static_cast<size_t>(a)], cl[static_cast<size_t>(b)]);
                if (!p.reachable()) {
                    model.add_less_equal({{za, 1}, {zb, 1}}, 1);
                    continue;
                }
                const int u = model.add_continuous(0, 1);
                model.add_greater_equal({{u, 1}, {za, -1}, {zb, -1}}, -1);
                model.add_greater_equal({{t_dp, 1}, {u, -2.0 * grad / p.bandwidth_Bps}}, 0);
            }
    }

    out.variables = model.num_variables();
    out.rows = model.num_rows();
    milp::SolveOptions opt;
    opt.time_limit_s = std::max(0.05, time_limit_s);
    opt.relative_gap = 1e-4;
    const milp::SolveResult r = milp::solve(model, opt);
    out.status = r.status;
    if (!r.has_solution()) return out;

    // Pipelines from the flows: each replica at stage s in cluster a continues to a b with flow
    // left; rounding leftovers go to any cluster with replicas of s+1 left.
    auto val = [&](int var) { return static_cast<int>(std::lround(r.values[static_cast<size_t>(var)])); };
    std::vector<int> cur;  // cluster position of each replica at the current stage
    for (int c = 0; c < k; ++c)
        for (int i = 0; i < val(n[0][static_cast<size_t>(c)]); ++i) cur.push_back(c);
    if (static_cast<int>(cur.size()) != dp) return out;
    out.cells.assign(static_cast<size_t>(pp) * dp, -1);
    for (int s = 0; s < pp; ++s) {
        for (int rep = 0; rep < dp; ++rep) out.cells[static_cast<size_t>(s) * dp + rep] = cl[static_cast<size_t>(cur[static_cast<size_t>(rep)])];
        if (s + 1 == pp) break;
        std::vector<int> want(static_cast<size_t>(k));
        for (int c = 0; c < k; ++c) want[static_cast<size_t>(c)] = val(n[static_cast<size_t>(s + 1)][static_cast<size_t>(c)]);
        std::vector<std::vector<int>> flow(static_cast<size_t>(k), std::vector<int>(static_cast<size_t>(k)));
        for (int a = 0; a < k; ++a)
            for (int b = 0; b < k; ++b) flow[static_cast<size_t>(a)][static_cast<size_t>(b)] = val(f[static_cast<size_t>(s)][static_cast<size_t>(a)][static_cast<size_t>(b)]);
        std::vector<int> next(static_cast<size_t>(dp), -1);
        for (int rep = 0; rep < dp; ++rep) {
            const int a = cur[static_cast<size_t>(rep)];
            for (int b = 0; b < k; ++b)
                if (flow[static_cast<size_t>(a)][static_cast<size_t>(b)] > 0 && want[static_cast<size_t>(b)] > 0) {
                    --flow[static_cast<size_t>(a)][static_cast<size_t>(b)];
                    --want[static_cast<size_t>(b)];
                    next[static_cast<size_t>(rep)] = b;
                    break;
                }
        }
        for (int rep = 0; rep < dp; ++rep) {
            if (next[static_cast<size_t>(rep)] >= 0) continue;
            for (int b = 0; b < k; ++b)
                if (want[static_cast<size_t>(b)] > 0) {
                    --want[static_cast<size_t>(b)];
                    next[static_cast<size_t>(rep)] = b;
                    break;
                }
            if (next[static_cast<size_t>(rep)] < 0) {
                out.cells.clear();
                return out;
            }
        }
        cur = next;
    }
    return out;
}

}  // namespace

PlanResult GlobalIlpPolicy::plan(const PlanRequest& request, const CostModel& cost) const {
    baselines::Evaluator eval(request, cost, name(), 600.0);
    baselines::BestKeeper keeper(eval);
    const std::vector<Shape> shapes = eval.shapes();
    std::map<milp::SolveStatus, int> statuses;
    int solved = 0;
    long long vars = 0, rows = 0;
    bool cut_short = false;
    for (size_t i = 0; i < shapes.size(); ++i) {
        // The remaining time shared evenly by the remaining shapes.
        const double left_s = eval.limit_s() - eval.elapsed_ms() / 1e3;
        if (eval.out_of_time() || left_s <= 0) {
            cut_short = true;
            break;
        }
        const ShapeSolve sol = solve_shape(eval, shapes[i], left_s / static_cast<double>(shapes.size() - i));
        ++statuses[sol.status];
        ++solved;
        vars = std::max<long long>(vars, sol.variables);
        rows = std::max<long long>(rows, sol.rows);
        if (sol.status == milp::SolveStatus::feasible_with_gap || sol.status == milp::SolveStatus::limit_without_solution)
            cut_short = true;
        if (sol.cells.empty()) continue;
        const Plan p = eval.realise(shapes[i], sol.cells);
        keeper.offer(p, baselines::layout_key(p));
    }
    std::string note = "global-ilp: " + std::to_string(solved) + " of " + std::to_string(shapes.size()) +
                       " shape MILPs solved by CBC (largest " + std::to_string(vars) + " variables, " +
                       std::to_string(rows) + " rows); status";
    for (const auto& [st, count] : statuses) note += std::string(" ") + milp::to_string(st) + "=" + std::to_string(count);
    PlanResult r = keeper.result(eval, note);
    if (cut_short && !r.hit_limit) {
        r.hit_limit = true;
        r.note += "; the time limit stopped CBC before proving optimality";
    }
    return r;
}

std::unique_ptr<PlannerPolicy> make_global_ilp() { return std::make_unique<GlobalIlpPolicy>(); }

}  // namespace spiderflow
