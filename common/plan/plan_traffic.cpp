#include "common/plan/plan_traffic.h"

#include <algorithm>
#include <map>
#include <utility>

namespace spiderflow {

double pp_boundary_bytes(const Plan& plan) {
    const JobSpec& job = plan.job;
    const double per_replica_sequences = static_cast<double>(plan.micro_batch) * plan.num_micro_batches;
    // Forward activations and backward gradients have the same size: seq x hidden per sequence.
    return 2.0 * per_replica_sequences * job.seq_len * job.model.hidden * job.bytes_per_param();
}

double stage_gradient_bytes(const Plan& plan, int stage) {
    const ModelArch& m = plan.job.model;
    const int layers = stage >= 0 && stage < static_cast<int>(plan.layers_per_stage.size())
                           ? plan.layers_per_stage[stage]
                           : 0;
    double params = layers * m.params_per_layer();
    // The input embedding lives on the first stage, the output head on the last (unless tied,
    // in which case Megatron keeps a copy there too and all-reduces it with the first).
    const double embed = static_cast<double>(m.vocab) * m.hidden;
    if (stage == 0) params += embed;
    if (stage == plan.pp - 1) params += embed;
    return params * plan.job.bytes_per_param();
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

std::vector<CrossTraffic> cross_cluster_traffic(const Plan& plan) {
    std::map<std::pair<int, int>, CrossTraffic> acc;
    auto entry = [&](int x, int y) -> CrossTraffic& {
        const auto key = std::minmax(x, y);
        CrossTraffic& t = acc[key];
        t.a = key.first;
        t.b = key.second;
        return t;
    };
    if (plan.cells.size() != static_cast<size_t>(plan.pp) * plan.dp) return {};

    const double boundary = pp_boundary_bytes(plan);
    for (int r = 0; r < plan.dp; ++r) {
        for (int s = 0; s + 1 < plan.pp; ++s) {
            const int x = plan.cell(s, r).cluster;
            const int y = plan.cell(s + 1, r).cluster;
            if (x == y) continue;
            CrossTraffic& t = entry(x, y);
            t.pp_bytes += boundary;
            t.pp_boundaries += 1;
        }
    }

    for (int s = 0; s < plan.pp; ++s) {
        const double grad = stage_gradient_bytes(plan, s);
        std::vector<int> ring;
        if (plan.hierarchical_dp) {
            ring = clusters_of_stage(plan, s);
        } else {
            for (int r = 0; r < plan.dp; ++r) ring.push_back(plan.cell(s, r).cluster);
        }
        const int k = static_cast<int>(ring.size());
        if (k < 2) continue;
        const double per_edge = 2.0 * (k - 1) / k * grad;
        for (int i = 0; i < k; ++i) {
            const int x = ring[i];
            const int y = ring[(i + 1) % k];
            if (x == y) continue;
            // A two-member ring has one edge, not two.
            if (k == 2 && i == 1) break;
            CrossTraffic& t = entry(x, y);
            t.dp_bytes += per_edge;
            t.dp_stages += 1;
        }
    }

    std::vector<CrossTraffic> out;
    out.reserve(acc.size());
    for (auto& [key, t] : acc) out.push_back(t);
    return out;
}

}  // namespace spiderflow
