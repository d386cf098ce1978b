#include "common/planner/baselines/global_ilp/shape_costs.h"

#include <algorithm>
#include <limits>
#include <map>

#include "common/cost/flops.h"
#include "common/plan/layer_split.h"
#include "common/plan/plan_traffic.h"
#include "common/planner/tpa/level1.h"

namespace spiderflow::global_ilp {
namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}

std::optional<ShapeCosts> shape_costs(baselines::Evaluator& eval, const Shape& sh,
                                      std::chrono::steady_clock::time_point deadline) {
    auto out_of_time = [&] { return std::chrono::steady_clock::now() >= deadline; };
    if (out_of_time()) return std::nullopt;
    ShapeCosts c;
    c.shape = sh;
    const Topology& topo = eval.topology();
    const PlanRequest& req = eval.request();
    const int pp = sh.pp, dp = sh.dp;
    c.micro_batches = req.job.global_batch / (dp * sh.micro_batch);
    c.clusters = eval.clusters_by_compute(sh.tp);
    const int k = c.k();

    // Per-cluster speed: mean of the fastest slots a stage's replicas would get.
    std::map<int, double> flops, memory;
    const auto& invs = eval.inventories(sh.tp);
    for (size_t i = 0; i < eval.eligible().size(); ++i) {
        flops[eval.eligible()[i]] = invs[i].best_flops(dp);
        double smallest = std::numeric_limits<double>::infinity();
        for (const auto& g : invs[i].groups) smallest = std::min(smallest, g.memory_bytes);
        memory[eval.eligible()[i]] = smallest;
    }
    for (int cl : c.clusters) c.slots.push_back(eval.slots_of(sh.tp, cl));

    // Volumes from the plan layer, on a skeleton plan of this shape with the most even layer split
    // Megatron-LM can launch.
    Plan skel;
    skel.job = req.job;
    skel.tp = sh.tp;
    skel.pp = pp;
    skel.dp = dp;
    skel.micro_batch = sh.micro_batch;
    skel.num_micro_batches = c.micro_batches;
    skel.layers_per_stage = megatron_even_split(req.job.model.layers, pp);  // what can launch
    const double boundary = pp_boundary_bytes(skel);
    const double passes = req.job.recompute == Recompute::full ? 4.0 : 3.0;  // forward + backward (+ recompute)
    const double per_layer_flops = passes * cost::layer_forward_flops_per_token(req.job.model, req.job.seq_len) *
                                   static_cast<double>(sh.micro_batch) * c.micro_batches * req.job.seq_len / sh.tp;
    c.comp_weight = 1.0 + static_cast<double>(pp - 1) / c.micro_batches;
    c.dp_weight = 1.0 - eval.cost().options().dp_overlap;

    const tpa::MemoryModel mem = tpa::memory_model(req.job, sh);
    c.comp.assign(static_cast<size_t>(pp), std::vector<double>(static_cast<size_t>(k)));
    for (int s = 0; s < pp; ++s) {
        for (int p = 0; p < k; ++p) {
            const int cl = c.clusters[static_cast<size_t>(p)];
            const double f = flops[cl];
            const int layers = skel.layers_per_stage[static_cast<size_t>(s)];
            // A stage whose even share of layers does not fit the cluster's smallest GPUs may
            // not go there: infinite cost keeps it out of the MILP and of every start layout.
            const bool fits = mem.max_layers(s, memory[cl]) >= layers;
            c.comp[static_cast<size_t>(s)][static_cast<size_t>(p)] =
                !fits ? kInfinity : f > 0 ? layers * per_layer_flops / f : 1e9;
        }
        c.grad.push_back(stage_gradient_bytes(skel, s));
        if (out_of_time()) return std::nullopt;
    }
    c.pipe.assign(static_cast<size_t>(k), std::vector<double>(static_cast<size_t>(k), 0.0));
    c.ring.assign(static_cast<size_t>(k), std::vector<double>(static_cast<size_t>(k), 0.0));
    for (int a = 0; a < k; ++a) {
        if (out_of_time()) return std::nullopt;
        for (int b = 0; b < k; ++b) {
            if (a == b) continue;
            const PathInfo& path = topo.path(c.clusters[static_cast<size_t>(a)], c.clusters[static_cast<size_t>(b)]);
            double& pipe = c.pipe[static_cast<size_t>(a)][static_cast<size_t>(b)];
            double& ring = c.ring[static_cast<size_t>(a)][static_cast<size_t>(b)];
            if (!path.reachable()) {
                pipe = ring = kInfinity;
                continue;
            }
            pipe = boundary / path.bandwidth_Bps + 2.0 * c.micro_batches * path.latency_s;
            ring = 2.0 / path.bandwidth_Bps;
        }
    }
    return c;
}

double proxy_objective(const ShapeCosts& c, const std::vector<int>& cells) {
    const int pp = c.pp(), dp = c.dp(), k = c.k();
    if (cells.size() != static_cast<size_t>(pp) * dp) return kInfinity;
    std::vector<int> used(static_cast<size_t>(k), 0);
    double t_comp = 0, t_dp = 0;
    std::vector<char> in_stage(static_cast<size_t>(k));
    std::vector<int> stage_clusters;
    for (int s = 0; s < pp; ++s) {
        std::fill(in_stage.begin(), in_stage.end(), 0);
        stage_clusters.clear();
        for (int r = 0; r < dp; ++r) {
            const int p = cells[static_cast<size_t>(s) * dp + r];
            if (p < 0 || p >= k) return kInfinity;
            ++used[static_cast<size_t>(p)];
            if (!in_stage[static_cast<size_t>(p)]) {
                in_stage[static_cast<size_t>(p)] = 1;
                stage_clusters.push_back(p);
                t_comp = std::max(t_comp, c.comp[static_cast<size_t>(s)][static_cast<size_t>(p)]);
            }
        }
        for (size_t i = 0; i < stage_clusters.size(); ++i)
            for (size_t j = i + 1; j < stage_clusters.size(); ++j)
                t_dp = std::max(t_dp, c.dp_pair(s, stage_clusters[i], stage_clusters[j]));
    }
    for (int p = 0; p < k; ++p)
        if (used[static_cast<size_t>(p)] > c.slots[static_cast<size_t>(p)]) return kInfinity;
    // Replicas crossing each cluster pair, both directions and all stage boundaries together.
    std::map<std::pair<int, int>, int> crossings;
    for (int s = 0; s + 1 < pp; ++s)
        for (int r = 0; r < dp; ++r) {
            const int a = cells[static_cast<size_t>(s) * dp + r], b = cells[static_cast<size_t>(s + 1) * dp + r];
            if (a != b) ++crossings[std::minmax(a, b)];
        }
    double t_pp = 0;
    for (const auto& [ab, count] : crossings)
        t_pp = std::max(t_pp, count * c.pipe[static_cast<size_t>(ab.first)][static_cast<size_t>(ab.second)]);
    if (t_dp == kInfinity) return kInfinity;  // a stage across an unreachable pair
    const double dp_term = c.dp_weight > 0 ? c.dp_weight * t_dp : 0.0;
    return c.comp_weight * t_comp + t_pp + dp_term;
}

}  // namespace spiderflow::global_ilp
