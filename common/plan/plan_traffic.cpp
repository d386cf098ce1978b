#include "common/plan/plan_traffic.h"

#include <algorithm>
#include <map>
#include <utility>

namespace spiderflow {

namespace {

bool well_formed(const Plan& plan) { return plan_problem(plan).empty(); }

}  // namespace

double activation_bytes(const JobSpec& job, int micro_batch) {
    return static_cast<double>(std::max(1, micro_batch)) * job.seq_len * job.model.hidden * job.bytes_per_param();
}

double activation_bytes(const Plan& plan) { return activation_bytes(plan.job, plan.micro_batch); }

double ring_edge_bytes(double bytes, int members) { return members < 2 ? 0.0 : 2.0 * (members - 1) / members * bytes; }

double pp_boundary_bytes(const Plan& plan) {
    // Forward activations and backward gradients have the same size; an interleaved schedule
    // crosses every boundary once per model chunk.
    return 2.0 * std::max(1, plan.num_micro_batches) * std::max(1, plan.virtual_stages) * activation_bytes(plan);
}

double stage_gradient_bytes(const Plan& plan, int stage) {
    const int layers = stage >= 0 && stage < static_cast<int>(plan.layers_per_stage.size())
                           ? plan.layers_per_stage[static_cast<size_t>(stage)]
                           : 0;
    // Megatron's copy of a tied head on the last stage is all-reduced with the rest of that stage.
    return plan.job.model.stage_params(layers, stage, plan.pp) * plan.job.bytes_per_param();
}

std::vector<ClusterFlow> pp_boundary_flows(const Plan& plan, int boundary, bool forward) {
    std::vector<ClusterFlow> flows;
    if (!well_formed(plan) || boundary < 0 || boundary + 1 >= plan.pp) return flows;
    const double bytes = activation_bytes(plan);
    for (int r = 0; r < plan.dp; ++r) {
        const int a = plan.cell(boundary, r).cluster, b = plan.cell(boundary + 1, r).cluster;
        if (a == b) continue;
        flows.push_back(forward ? ClusterFlow{a, b, bytes} : ClusterFlow{b, a, bytes});
    }
    return flows;
}

std::vector<int> clusters_of_stage(const Plan& plan, int stage) {
    std::vector<int> out;
    for (int r = 0; r < plan.dp; ++r) {
        const size_t i = static_cast<size_t>(stage) * plan.dp + r;
        if (i < plan.cells.size()) out.push_back(plan.cells[i].cluster);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<std::vector<int>> dp_groups(const Plan& plan, int stage) {
    std::vector<std::vector<int>> groups;
    if (!well_formed(plan) || stage < 0 || stage >= plan.pp) return groups;
    std::vector<int> order(static_cast<size_t>(plan.dp));
    for (int r = 0; r < plan.dp; ++r) order[static_cast<size_t>(r)] = r;
    std::stable_sort(order.begin(), order.end(),
                     [&](int x, int y) { return plan.cell(stage, x).cluster < plan.cell(stage, y).cluster; });
    for (size_t k = 0; k < order.size(); ++k) {
        if (k == 0 || plan.cell(stage, order[k]).cluster != plan.cell(stage, order[k - 1]).cluster) groups.emplace_back();
        groups.back().push_back(order[k]);
    }
    return groups;
}

namespace {

// A ring all-reduce of `bytes` among the clusters of `stage`'s replicas (hierarchical: one
// member per cluster; flat: every replica in order), as WAN flows.
std::vector<ClusterFlow> ring_flows(const Plan& plan, int stage, bool hierarchical, double bytes) {
    std::vector<ClusterFlow> flows;
    std::vector<int> ring;
    if (hierarchical) {
        for (const auto& group : dp_groups(plan, stage)) ring.push_back(plan.cell(stage, group.front()).cluster);
    } else {
        for (int r = 0; r < plan.dp; ++r) ring.push_back(plan.cell(stage, r).cluster);
    }
    const int k = static_cast<int>(ring.size());
    if (k < 2) return flows;
    const double per_edge = ring_edge_bytes(bytes, k);
    for (int i = 0; i < k; ++i) {
        const int x = ring[static_cast<size_t>(i)], y = ring[static_cast<size_t>((i + 1) % k)];
        if (x != y) flows.push_back({x, y, per_edge});
    }
    return flows;
}

}  // namespace

std::vector<ClusterFlow> dp_allreduce_flows(const Plan& plan, int stage) {
    // DiLoCo keeps each iteration's all-reduce inside its site; the WAN sees outer_sync_flows.
    if (!well_formed(plan) || stage < 0 || stage >= plan.pp || plan.job.sync.diloco()) return {};
    return ring_flows(plan, stage, plan.hierarchical_dp, stage_gradient_bytes(plan, stage));
}

double stage_pseudo_gradient_bytes(const Plan& plan, int stage) {
    return stage_gradient_bytes(plan, stage) / plan.job.bytes_per_param() * plan.job.sync.outer_bytes_per_param();
}

std::vector<ClusterFlow> outer_sync_flows(const Plan& plan, int stage) {
    if (!well_formed(plan) || stage < 0 || stage >= plan.pp || !plan.job.sync.diloco()) return {};
    return ring_flows(plan, stage, true, stage_pseudo_gradient_bytes(plan, stage));
}

double outer_step_wan_bytes(const Plan& plan) {
    double total = 0;
    for (int s = 0; s < plan.pp; ++s)
        for (const ClusterFlow& f : outer_sync_flows(plan, s)) total += f.bytes;
    return total;
}

double iteration_wan_bytes(const Plan& plan) {
    double total = 0;
    for (int b = 0; b + 1 < plan.pp; ++b)
        for (bool forward : {true, false})
            for (const ClusterFlow& f : pp_boundary_flows(plan, b, forward)) total += f.bytes;
    total *= std::max(1, plan.num_micro_batches) * std::max(1, plan.virtual_stages);
    for (int s = 0; s < plan.pp; ++s)
        for (const ClusterFlow& f : dp_allreduce_flows(plan, s)) total += f.bytes;
    return total;
}

std::vector<CrossTraffic> cross_cluster_traffic(const Plan& plan) {
    std::map<std::pair<int, int>, CrossTraffic> acc;
    auto entry = [&](int x, int y) -> CrossTraffic& {
        const auto key = std::minmax(x, y);
        CrossTraffic& t = acc[key];
        t.a = key.first;
        t.b = key.second;
        return t;
    };
    if (!well_formed(plan)) return {};

    const int M = std::max(1, plan.num_micro_batches) * std::max(1, plan.virtual_stages);
    for (int s = 0; s + 1 < plan.pp; ++s) {
        for (const bool forward : {true, false}) {
            for (const ClusterFlow& f : pp_boundary_flows(plan, s, forward)) {
                CrossTraffic& t = entry(f.src, f.dst);
                t.pp_bytes += M * f.bytes;
                if (forward) t.pp_boundaries += 1;
            }
        }
    }
    for (int s = 0; s < plan.pp; ++s) {
        // Per pair, bytes in each direction; the busier one is what the link must carry.
        std::map<std::pair<int, int>, std::pair<double, double>> dirs;
        for (const ClusterFlow& f : dp_allreduce_flows(plan, s)) {
            auto& d = dirs[std::minmax(f.src, f.dst)];
            (f.src < f.dst ? d.first : d.second) += f.bytes;
        }
        for (const auto& [pair, d] : dirs) {
            CrossTraffic& t = entry(pair.first, pair.second);
            t.dp_bytes += std::max(d.first, d.second);
            t.dp_stages += 1;
        }
    }

    std::vector<CrossTraffic> out;
    out.reserve(acc.size());
    for (auto& [key, t] : acc) out.push_back(t);
    return out;
}

}  // namespace spiderflow
