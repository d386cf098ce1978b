#include "common/planner/spinsearch/skeleton.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/plan/plan_traffic.h"

namespace spiderflow::spin {

double link_reference_Bps(const JobSpec& job, const Shape& shape, double gpu_flops) {
    const ModelArch& m = job.model;
    const double bpp = job.bytes_per_param();
    const double tokens = static_cast<double>(job.global_batch) * job.seq_len;
    // One boundary, every sample's activations forward and their gradients back: what
    // pp_boundary_bytes() sums over the replicas of a plan.
    const double pp_bytes = 2.0 * job.global_batch * activation_bytes(job, 1);
    // Deliberately rougher than the plan's own figures, as no layers are split yet: a stage's
    // gradients as an even share of all parameters, and the whole ring's 2x rather than
    // ring_edge_bytes()' 2 (k-1)/k; compute as Kaplan's 6 x active weights per token, without
    // attention scores and logits (cost/flops.h counts those). A scale for spin()'s score only.
    const double dp_bytes = 2.0 * m.total_params() / std::max(1, shape.pp) * bpp;
    const double compute_s = 6.0 * m.layers * m.active_params_per_layer() * tokens /
                             std::max(1.0, shape.gpus() * gpu_flops);
    return std::min(pp_bytes, dp_bytes) / std::max(1e-9, compute_s);
}

std::vector<ClusterShare> spin(const Topology& topology, const std::vector<tpa::ClusterInventory>& inventories,
                               const std::vector<int>& candidates, int seed, int cells, double reference_Bps) {
    std::vector<ClusterShare> order;
    const size_t n = candidates.size();
    std::vector<double> reach(n, 0.0);  // widest bandwidth from the set grown so far
    std::vector<bool> used(n, false);
    auto take = [&](size_t i) {
        const tpa::ClusterInventory& inv = inventories[static_cast<size_t>(candidates[i])];
        used[i] = true;
        const int want = std::min(cells, inv.slots());
        order.push_back(ClusterShare{inv.cluster, inv.slots(), inv.best_flops(want)});
        cells -= want;
        for (size_t j = 0; j < n; ++j) {
            if (used[j]) continue;
            const int other = inventories[static_cast<size_t>(candidates[j])].cluster;
            reach[j] = std::max(reach[j], topology.path(inv.cluster, other).bandwidth_Bps);
        }
    };
    take(static_cast<size_t>(seed));
    while (cells > 0) {
        double best = 0;
        size_t pick = n;
        for (size_t j = 0; j < n; ++j) {
            if (used[j] || reach[j] <= 0) continue;
            const tpa::ClusterInventory& inv = inventories[static_cast<size_t>(candidates[j])];
            const int gain_cells = std::min(cells, inv.slots());
            // Compute gained, discounted by how far the link falls below what the job needs.
            const double score = gain_cells * inv.best_flops(gain_cells) * reach[j] / (reach[j] + reference_Bps);
            if (score > best) {
                best = score;
                pick = j;
            }
        }
        if (pick == n) return {};
        take(pick);
    }
    return order;
}

std::vector<ClusterShare> chain_order(const Topology& topology, std::vector<ClusterShare> order,
                                      std::pair<int, int> whole_stages_of) {
    const auto [dp, pp] = whole_stages_of;
    int stages = order.empty() || dp <= 0 ? 0 : order.front().slots / dp;
    for (size_t i = 1; i + 1 < order.size(); ++i) {
        if (dp > 0 && stages >= pp) break;
        const int last = order[i - 1].cluster;
        size_t pick = i;
        for (size_t j = i + 1; j < order.size(); ++j) {
            const PathInfo& a = topology.path(last, order[j].cluster);
            const PathInfo& b = topology.path(last, order[pick].cluster);
            if (a.bandwidth_Bps > b.bandwidth_Bps ||
                (a.bandwidth_Bps == b.bandwidth_Bps && a.latency_s < b.latency_s))
                pick = j;
        }
        std::swap(order[i], order[pick]);
        if (dp > 0) stages += order[i].slots / dp;
    }
    return order;
}

std::vector<int> fill(const std::vector<ClusterShare>& order, int pp, int dp, int groups, bool whole_groups) {
    if (groups < 1 || dp % groups != 0) return {};
    const int per_group = dp / groups;
    std::vector<int> out(static_cast<size_t>(pp) * dp, -1);
    std::vector<int> left;
    long total_left = 0;
    for (const ClusterShare& c : order) {
        left.push_back(c.slots);
        total_left += c.slots;
    }
    long needed = static_cast<long>(pp) * dp;
    size_t cur = 0;
    // Leaves the rest of the current cluster empty when a block would straddle it and enough
    // spare room remains elsewhere: fewer pipelines/DP groups cut by a site boundary.
    auto align = [&](int block) {
        while (cur < left.size() && left[cur] < block && left[cur] > 0 && total_left - left[cur] >= needed) {
            total_left -= left[cur];
            left[cur] = 0;
            ++cur;
        }
    };
    auto put = [&](int stage, int replica) {
        while (cur < left.size() && left[cur] == 0) ++cur;
        if (cur >= left.size()) return false;
        out[static_cast<size_t>(stage) * dp + replica] = order[cur].cluster;
        --left[cur];
        --total_left;
        --needed;
        return true;
    };
    for (int g = 0; g < groups; ++g) {
        if (whole_groups) align(pp * per_group);
        for (int s = 0; s < pp; ++s) {
            align(per_group);
            for (int r = 0; r < per_group; ++r)
                if (!put(s, g * per_group + r)) return {};
        }
    }
    return out;
}

std::vector<int> reverse_stages(const std::vector<int>& cell_cluster, int pp, int dp) {
    if (cell_cluster.empty()) return {};
    std::vector<int> out(cell_cluster.size());
    for (int s = 0; s < pp; ++s)
        for (int r = 0; r < dp; ++r)
            out[static_cast<size_t>(s) * dp + r] = cell_cluster[static_cast<size_t>(pp - 1 - s) * dp + r];
    return out;
}

std::vector<int> group_choices(int dp, int clusters) {
    std::set<int> g{1, dp};
    std::vector<int> divisors;
    for (int d = 1; d <= dp; ++d)
        if (dp % d == 0) divisors.push_back(d);
    // One group per cluster (each site runs whole pipelines of its own group) and the middle.
    for (int d : divisors)
        if (d >= clusters) {
            g.insert(d);
            break;
        }
    const double mid = std::sqrt(static_cast<double>(dp));
    int best = 1;
    for (int d : divisors)
        if (std::fabs(d - mid) < std::fabs(best - mid)) best = d;
    g.insert(best);
    return {g.begin(), g.end()};
}

}  // namespace spiderflow::spin
