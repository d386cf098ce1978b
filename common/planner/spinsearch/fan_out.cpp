#include "common/planner/spinsearch/fan_out.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_map>

namespace spiderflow::spin {
namespace {

// Load per topology link of the crossings placed so far, and what one more crossing between two
// clusters would get: the smallest bandwidth share along its route.
class LinkLoad {
public:
    explicit LinkLoad(const Topology& t) : topo_(t), load_(t.links.size(), 0) {}
    double share_if_added(int a, int b) {
        const std::vector<int>& route = route_of(a, b);
        if (route.empty()) return 0;
        double share = std::numeric_limits<double>::infinity();
        for (int l : route)
            share = std::min(share, topo_.links[static_cast<size_t>(l)].bandwidth_Bps / (load_[static_cast<size_t>(l)] + 1));
        return share;
    }
    void add(int a, int b) {
        for (int l : route_of(a, b)) ++load_[static_cast<size_t>(l)];
    }

private:
    // Every replica asks for the same few routes (mostly from the hub): look each up once.
    const std::vector<int>& route_of(int a, int b) {
        const uint64_t key = static_cast<uint64_t>(a) * topo_.clusters.size() + static_cast<uint64_t>(b);
        auto it = routes_.find(key);
        if (it == routes_.end()) it = routes_.emplace(key, topo_.route_links(a, b)).first;
        return it->second;
    }

    const Topology& topo_;
    std::vector<int> load_;
    std::unordered_map<uint64_t, std::vector<int>> routes_;
};

}  // namespace

std::vector<int> fan_out(const Topology& topology, const ClusterShare& hub, const std::vector<ClusterShare>& others,
                         int pp, int dp, int hub_stages, bool hub_first) {
    if (hub_stages < 1 || hub_stages >= pp || hub.slots < hub_stages * dp) return {};
    std::vector<int> out(static_cast<size_t>(pp) * dp, -1);
    // Stage positions in pipeline order as seen from the hub: hub stages first.
    auto stage_at = [&](int i) { return hub_first ? i : pp - 1 - i; };
    for (int i = 0; i < hub_stages; ++i)
        for (int r = 0; r < dp; ++r) out[static_cast<size_t>(stage_at(i)) * dp + r] = hub.cluster;

    // The hub's spare slots keep the last few replicas whole at home: no crossing at all.
    const int tail = pp - hub_stages;
    const int home_replicas = std::min(dp, (hub.slots - hub_stages * dp) / tail);
    for (int r = dp - home_replicas; r < dp; ++r)
        for (int i = hub_stages; i < pp; ++i) out[static_cast<size_t>(stage_at(i)) * dp + r] = hub.cluster;
    std::vector<int> left;
    for (const ClusterShare& c : others) left.push_back(c.slots);
    LinkLoad load(topology);
    for (int r = 0; r < dp - home_replicas; ++r) {
        int at = hub.cluster;       // where this replica's pipeline currently ends
        int i = hub_stages;         // next stage position to place
        while (i < pp) {
            const int need = pp - i;
            // Prefer a cluster that takes the whole rest of the pipeline (one crossing), then the
            // one whose route offers the widest share.
            int pick = -1;
            bool pick_whole = false;
            double pick_share = 0;
            for (size_t k = 0; k < others.size(); ++k) {
                if (left[k] <= 0 || others[k].cluster == at) continue;
                const bool whole = left[k] >= need;
                const double share = load.share_if_added(at, others[k].cluster);
                if (share <= 0) continue;
                if (pick < 0 || (whole && !pick_whole) || (whole == pick_whole && share > pick_share)) {
                    pick = static_cast<int>(k);
                    pick_whole = whole;
                    pick_share = share;
                }
            }
            if (pick < 0) return {};
            const ClusterShare& c = others[static_cast<size_t>(pick)];
            load.add(at, c.cluster);
            const int take = std::min(need, left[static_cast<size_t>(pick)]);
            for (int t = 0; t < take; ++t, ++i) out[static_cast<size_t>(stage_at(i)) * dp + r] = c.cluster;
            left[static_cast<size_t>(pick)] -= take;
            at = c.cluster;
        }
    }
    return out;
}

std::vector<int> fan_out_depths(int hub_slots, int pp, int dp) {
    const int most = std::min(pp - 1, hub_slots / std::max(1, dp));
    std::vector<int> out;
    if (most >= 1) out.push_back(most);
    if (most / 2 >= 1 && most / 2 != most) out.push_back(most / 2);
    return out;
}

}  // namespace spiderflow::spin
