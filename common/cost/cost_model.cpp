// The iteration-time model; doc/cost-model.md derives every term. All work is O(pp*dp) per call
// with a handful of small vectors, and nothing is mutated: estimate() is safe from many threads.
#include "common/cost/cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "common/cost/comm.h"
#include "common/cost/flops.h"
#include "common/cost/memory.h"
#include "common/cost/wan_shares.h"
#include "common/util/units.h"

namespace spiderflow {

namespace {

constexpr double kDefaultHbm_Bps = 1e12;  // when a site's GPU entry gives no HBM figure

// A link between two cells: what their NIC shares allow and, when it crosses clusters, the WAN
// path that every crossing between the same two clusters shares.
struct LinkFig {
    double nic_Bps = 0;
    double latency_s = 0;
    double wan_Bps = 0;   // 0 = stays inside a cluster
    int a = -1;
    int b = -1;
};

// What one crossing gets: its NIC share, and inside the WAN its share of the busiest link on
// its route.
double effective_Bps(const LinkFig& l, cost::WanShares& shares) {
    if (l.wan_Bps <= 0) return l.nic_Bps;
    return std::min(l.nic_Bps, shares.per_crossing_Bps(l.a, l.b));
}

std::string gib(double bytes) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / units::kGiB);
    return buf;
}

}  // namespace

CostModel::CostModel(const Topology& topology, const Catalog& catalog, CostOptions options)
    : topology_(topology), catalog_(catalog), options_(options) {
    nodes_.resize(topology.clusters.size());
    for (size_t c = 0; c < topology.clusters.size(); ++c) {
        const Cluster& cluster = topology.clusters[c];
        for (const Node& node : cluster.nodes) {
            NodeFacts f;
            f.gpu = catalog.gpu(node.gpu_type);
            double nic = 0;
            for (const Nic& n : node.nics) nic += n.bandwidth_Bps;
            f.network_Bps = nic > 0 ? nic : cluster.intra_bandwidth_Bps;
            f.nvlink_domain = node.nvlink_domain_size > 0 ? node.nvlink_domain_size : node.gpus;
            if (f.gpu != nullptr) {
                f.local_Bps = (f.gpu->nvlink_Bps > 0 && f.nvlink_domain > 1) ? f.gpu->nvlink_Bps : f.gpu->pcie_Bps;
            }
            nodes_[c].push_back(f);
        }
    }
}

Prediction CostModel::estimate(const Plan& plan) const {
    Prediction p = estimate_impl(plan, false);
    if (!options_.scaling_efficiency || p.iteration_s <= 0 || !std::isfinite(p.iteration_s)) return p;
    bool several_sites = false;
    for (const auto& c : plan.cells) several_sites = several_sites || c.cluster != plan.cells.front().cluster;
    if (!several_sites) {
        p.scaling_efficiency = 1.0;
    } else {
        const Prediction one_site = estimate_impl(plan, true);
        p.scaling_efficiency = one_site.iteration_s / p.iteration_s;
    }
    return p;
}

Prediction CostModel::estimate_impl(const Plan& plan, bool single_site) const {
    Prediction out;
    auto fail = [&out](const std::string& why) {
        out.feasible = false;
        out.infeasible_reason = why;
        return out;
    };
    const JobSpec& job = plan.job;
    const ModelArch& m = job.model;
    const int P = plan.pp, D = plan.dp, T = plan.tp, M = plan.num_micro_batches;
    const int V = P > 1 ? std::max(options_.virtual_stages, 1) : 1;

    // ---- Is the plan well formed against this topology? ----
    if (!topology_.finalized()) return fail("topology is not finalized");
    if (m.layers < 1 || m.hidden < 1 || m.heads < 1 || m.vocab < 1 || job.seq_len < 1) {
        return fail("the job's model has no dimensions");
    }
    if (const PlanProblem bad = plan_problem(plan, &topology_); !bad.empty()) return fail(bad.message());
    const auto& clusters = topology_.clusters;
    for (size_t i = 0; i < plan.cells.size(); ++i) {
        const StageCell& c = plan.cells[i];
        if (nodes_[static_cast<size_t>(c.cluster)][static_cast<size_t>(c.node)].gpu == nullptr) {
            const Cluster& cl = clusters[static_cast<size_t>(c.cluster)];
            const Node& node = cl.nodes[static_cast<size_t>(c.node)];
            return fail("cell (stage " + std::to_string(i / D) + ", replica " + std::to_string(i % D) + "): GPU type '" +
                        node.gpu_type + "' of " + cl.name + "/" + node.name + " is not in the catalog");
        }
    }
    auto facts = [this](const StageCell& c) -> const NodeFacts& {
        return nodes_[static_cast<size_t>(c.cluster)][static_cast<size_t>(c.node)];
    };

    // ---- Compute and TP per cell, per micro-batch ----
    const double tokens_mb = static_cast<double>(plan.micro_batch) * job.seq_len;
    const double f_layer = cost::layer_forward_flops_per_token(m, job.seq_len);
    const double f_logits = cost::logits_forward_flops_per_token(m);
    const double bpe = job.bytes_per_param();
    const double msg_bytes = tokens_mb * m.hidden * bpe;  // one activation tensor: p2p and TP all-reduce
    const int tp_allreduces = job.recompute ? 6 : 4;     // per layer per micro-batch, fwd (+recompute) + bwd
    std::vector<double> compute(plan.cells.size()), tp_time(plan.cells.size()), backward(plan.cells.size());
    double peak_sum = 0;
    for (int s = 0; s < P; ++s) {
        const double layers = plan.layers_per_stage[static_cast<size_t>(s)];
        const double fwd_flops = tokens_mb * (layers * f_layer + (s == P - 1 ? f_logits : 0.0));
        const double rec_flops = job.recompute ? tokens_mb * layers * f_layer : 0.0;
        for (int r = 0; r < D; ++r) {
            const size_t i = static_cast<size_t>(s) * D + r;
            const NodeFacts& f = facts(plan.cells[i]);
            const double rate = f.gpu->peak_flops * f.gpu->efficiency * T;
            peak_sum += f.gpu->peak_flops * T;
            const double fwd = fwd_flops / rate;
            const double rec = rec_flops / rate;
            compute[i] = 3.0 * fwd + rec;  // backward = 2x forward
            backward[i] = 2.0 * fwd + rec;
            if (T > 1) {
                const bool nvlink = f.gpu->nvlink_Bps > 0 && f.nvlink_domain >= T;
                const double bw = nvlink ? f.gpu->nvlink_Bps : f.gpu->pcie_Bps;
                tp_time[i] = layers * tp_allreduces * cost::ring_allreduce_s(msg_bytes, T, bw, 0.0) *
                             (1.0 - options_.tp_overlap);
            }
        }
    }

    auto link = [&](const StageCell& x, const StageCell& y) -> LinkFig {
        const NodeFacts& fx = facts(x);
        LinkFig l;
        if (x.cluster == y.cluster && x.node == y.node) {
            l.nic_Bps = fx.local_Bps;
            return l;
        }
        const NodeFacts& fy = facts(y);
        const Cluster& cx = clusters[static_cast<size_t>(x.cluster)];
        const Cluster& cy = clusters[static_cast<size_t>(y.cluster)];
        // A cell's share of its node's NICs: TP ranks each drive their own NIC (Megatron's
        // scatter/gather of p2p messages; one NCCL ring per rank for DP).
        const double sx = fx.network_Bps * T / cx.nodes[static_cast<size_t>(x.node)].gpus;
        const double sy = fy.network_Bps * T / cy.nodes[static_cast<size_t>(y.node)].gpus;
        l.nic_Bps = std::min(sx, sy);
        l.latency_s = std::max(cx.intra_latency_s, cy.intra_latency_s);
        if (x.cluster == y.cluster || single_site) return l;
        const PathInfo& path = topology_.path(x.cluster, y.cluster);
        l.wan_Bps = path.bandwidth_Bps;
        l.latency_s = path.latency_s;
        l.a = x.cluster;
        l.b = y.cluster;
        return l;
    };
    auto link_ok = [&](const LinkFig& l, const StageCell& x, const StageCell& y, std::string& why) {
        if (l.nic_Bps > 0 && (l.a < 0 || (l.wan_Bps > 0 && std::isfinite(l.latency_s)))) return true;
        why = "no bandwidth between " + clusters[static_cast<size_t>(x.cluster)].name + "/" +
              clusters[static_cast<size_t>(x.cluster)].nodes[static_cast<size_t>(x.node)].name + " and " +
              clusters[static_cast<size_t>(y.cluster)].name + "/" +
              clusters[static_cast<size_t>(y.cluster)].nodes[static_cast<size_t>(y.node)].name;
        return false;
    };

    // ---- Pipelines: 1F1B per replica; the slowest replica sets the pace ----
    cost::WanShares pp_shares(topology_);
    for (int r = 0; r < D; ++r) {
        for (int s = 0; s + 1 < P; ++s) {
            const LinkFig l = link(plan.cell(s, r), plan.cell(s + 1, r));
            if (l.wan_Bps > 0) pp_shares.add(l.a, l.b);
        }
    }
    int slow_r = 0, slow_s = 0;
    double slow_T = -1, slow_p2p = 0, slow_lat = 0, slow_stage = 0;
    for (int r = 0; r < D; ++r) {
        double stage_max = 0, p2p_max = 0, lat_sum = 0;
        int s_max = 0;
        for (int s = 0; s < P; ++s) {
            const size_t i = static_cast<size_t>(s) * D + r;
            if (compute[i] + tp_time[i] > stage_max) {
                stage_max = compute[i] + tp_time[i];
                s_max = s;
            }
            if (s + 1 < P) {
                const LinkFig l = link(plan.cell(s, r), plan.cell(s + 1, r));
                std::string why;
                if (!link_ok(l, plan.cell(s, r), plan.cell(s + 1, r), why)) return fail(why);
                // Activations forward and their gradients backward, each once per micro-batch.
                p2p_max = std::max(p2p_max, 2.0 * msg_bytes / effective_Bps(l, pp_shares));
                lat_sum += 2.0 * l.latency_s;  // paid once filling, once draining
            }
        }
        const double t = M * stage_max + (P - 1) * stage_max / V + M * V * p2p_max + lat_sum;
        if (t > slow_T) {
            slow_T = t;
            slow_r = r;
            slow_s = s_max;
            slow_p2p = p2p_max;
            slow_lat = lat_sum;
            slow_stage = stage_max;
        }
    }
    double backward_max = 0;
    for (double b : backward) backward_max = std::max(backward_max, b);

    // ---- Data parallelism: per stage, ring or hierarchical; stages reduce concurrently ----
    double dp_exposed = 0;
    if (D > 1) {
        std::vector<int> order(static_cast<size_t>(D));
        cost::WanShares dp_shares(topology_);
        std::vector<int> heads;  // one member per cluster group, reused across stages
        for (int pass = 0; pass < 2; ++pass) {
            const bool counting = pass == 0;
            for (int s = 0; s < P; ++s) {
                const double grad = cost::stage_params_per_gpu(plan, s) * T * bpe;  // one cell's gradients
                for (int r = 0; r < D; ++r) order[static_cast<size_t>(r)] = r;
                if (!single_site) {
                    std::stable_sort(order.begin(), order.end(),
                                     [&](int x, int y) { return plan.cell(s, x).cluster < plan.cell(s, y).cluster; });
                }
                int groups = 1;
                for (int k = 1; k < D; ++k) {
                    groups += plan.cell(s, order[static_cast<size_t>(k)]).cluster !=
                              plan.cell(s, order[static_cast<size_t>(k - 1)]).cluster;
                }
                if (single_site) groups = 1;
                // Bottleneck of a ring over order[from..to): min bandwidth, max latency.
                auto ring = [&](int from, int to, double& bw, double& lat, std::string& why) {
                    bw = INFINITY;
                    lat = 0;
                    for (int k = from; k < to; ++k) {
                        const int nk = k + 1 < to ? k + 1 : from;
                        if (nk == k) break;
                        const StageCell& x = plan.cell(s, order[static_cast<size_t>(k)]);
                        const StageCell& y = plan.cell(s, order[static_cast<size_t>(nk)]);
                        const LinkFig l = link(x, y);
                        if (counting) {
                            if (l.wan_Bps > 0) dp_shares.add(l.a, l.b);
                        } else {
                            if (!link_ok(l, x, y, why)) return false;
                            bw = std::min(bw, effective_Bps(l, dp_shares));
                            lat = std::max(lat, l.latency_s);
                        }
                        if (to - from == 2) break;  // two members: one full-duplex link
                    }
                    return true;
                };
                double t = 0;
                std::string why;
                if (groups == 1 || !plan.hierarchical_dp) {
                    for (int r = 0; r < D; ++r) order[static_cast<size_t>(r)] = r;  // flat ring in replica order
                    double bw, lat;
                    if (!ring(0, D, bw, lat, why)) return fail(why);
                    if (!counting) t = cost::ring_allreduce_s(grad, D, bw, lat);
                } else {
                    // Reduce-scatter inside each cluster, all-reduce of the shards across clusters
                    // (ring over one member per cluster), all-gather inside.
                    double inside = 0, nic_min = INFINITY;
                    int smallest = D;
                    heads.clear();
                    int start = 0;
                    for (int k = 1; k <= D; ++k) {
                        if (k < D && plan.cell(s, order[static_cast<size_t>(k)]).cluster ==
                                         plan.cell(s, order[static_cast<size_t>(start)]).cluster) {
                            continue;
                        }
                        double bw, lat;
                        if (!ring(start, k, bw, lat, why)) return fail(why);
                        if (!counting && k - start > 1) inside = std::max(inside, cost::ring_half_s(grad, k - start, bw, lat));
                        smallest = std::min(smallest, k - start);
                        heads.push_back(order[static_cast<size_t>(start)]);
                        start = k;
                    }
                    const int C = static_cast<int>(heads.size());
                    double wan_min = INFINITY, lat_max = 0;
                    for (int g = 0; g < C; ++g) {
                        const int ng = (g + 1) % C;
                        const StageCell& x = plan.cell(s, heads[static_cast<size_t>(g)]);
                        const StageCell& y = plan.cell(s, heads[static_cast<size_t>(ng)]);
                        const LinkFig l = link(x, y);
                        if (counting) {
                            if (l.wan_Bps > 0) dp_shares.add(l.a, l.b);
                        } else {
                            if (!link_ok(l, x, y, why)) return fail(why);
                            wan_min = std::min(wan_min, dp_shares.per_crossing_Bps(l.a, l.b));
                            nic_min = std::min(nic_min, l.nic_Bps);
                            lat_max = std::max(lat_max, l.latency_s);
                        }
                        if (C == 2) break;
                    }
                    if (!counting) {
                        // The shard rings run in parallel, one per member of the smallest group, each
                        // over its own NIC; together they cannot beat the WAN path.
                        const double across = std::max(cost::ring_allreduce_s(grad, C, wan_min, lat_max),
                                                       cost::ring_allreduce_s(grad / smallest, C, nic_min, 0.0));
                        t = 2.0 * inside + across;
                    }
                }
                if (counting) continue;
                double stage_backward = 0;
                for (int r = 0; r < D; ++r) stage_backward = std::max(stage_backward, backward[static_cast<size_t>(s) * D + r]);
                // Up to dp_overlap of it hides behind the last micro-batch's backward; a stage also
                // finishes s backward steps before stage 0 ends the iteration.
                const double hidden = std::min(options_.dp_overlap * t, stage_backward);
                dp_exposed = std::max(dp_exposed, std::max(0.0, t - hidden - s * backward_max));
            }
        }
    }

    // ---- Optimizer: memory-bound Adam update on each GPU ----
    double optimizer = 0;
    const double state_bytes = job.precision == Precision::fp32 ? 8.0 : 12.0;
    for (int s = 0; s < P; ++s) {
        const double params = cost::stage_params_per_gpu(plan, s);
        const double owned = params / (job.zero1 ? D : 1);
        // read+write of master weights and both moments, read of gradients, write of weights
        const double bytes = owned * (2.0 * state_bytes + 2.0 * bpe);
        for (int r = 0; r < D; ++r) {
            const GpuType* g = facts(plan.cell(s, r)).gpu;
            optimizer = std::max(optimizer, bytes / (g->hbm_Bps > 0 ? g->hbm_Bps : kDefaultHbm_Bps));
        }
    }

    // ---- Memory ----
    out.stage_memory_bytes.resize(static_cast<size_t>(P));
    double worst_ratio = 0;
    for (int s = 0; s < P; ++s) {
        const cost::StageMemory mem =
            cost::stage_memory(plan, s, {options_.sequence_parallel, options_.flash_attention});
        out.stage_memory_bytes[static_cast<size_t>(s)] = mem.total();
        out.max_memory_bytes = std::max(out.max_memory_bytes, mem.total());
        for (int r = 0; r < D; ++r) {
            const StageCell& c = plan.cell(s, r);
            const GpuType* g = facts(c).gpu;
            const double limit = g->memory_bytes * options_.memory_headroom;
            const double ratio = mem.total() / limit;
            if (ratio > 1.0 && ratio > worst_ratio) {
                worst_ratio = ratio;
                out.feasible = false;
                out.infeasible_reason =
                    "stage " + std::to_string(s) + " needs " + gib(mem.total()) + " per GPU (weights " + gib(mem.weights) +
                    ", gradients " + gib(mem.gradients) + ", optimizer " + gib(mem.optimizer) + ", activations " +
                    gib(mem.activations) + ") but " + g->name + " on " + clusters[static_cast<size_t>(c.cluster)].name +
                    " allows " + gib(limit) + " (" + std::to_string(static_cast<int>(options_.memory_headroom * 100 + 0.5)) +
                    "% of " + gib(g->memory_bytes) + ")";
            }
        }
    }

    // ---- Totals, from the slowest replica ----
    const size_t si = static_cast<size_t>(slow_s) * D + slow_r;
    out.compute_s = M * compute[si];
    out.tp_comm_s = M * tp_time[si];
    out.pp_comm_s = M * V * slow_p2p;
    out.bubble_s = (P - 1) * slow_stage / V + slow_lat;
    out.dp_comm_s = dp_exposed;
    out.optimizer_s = optimizer;
    out.iteration_s = slow_T + dp_exposed + optimizer;
    out.tokens_per_s = static_cast<double>(job.global_batch) * job.seq_len / out.iteration_s;
    out.mfu = cost::model_flops_per_iteration(job) / out.iteration_s / peak_sum;
    return out;
}

}  // namespace spiderflow
