#include "common/cost/fabric_shares.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace spiderflow::cost {

ClusterFabric ClusterFabric::of(const Cluster& cluster) {
    ClusterFabric f;
    const size_t n = cluster.switches.size();
    f.parent.assign(n, -1);
    f.uplink_Bps.resize(n);
    f.leaf_of_node.assign(cluster.nodes.size(), -1);
    auto index_of = [&](const std::string& name) {
        for (size_t s = 0; s < n; ++s)
            if (cluster.switches[s].name == name) return static_cast<int>(s);
        return -1;
    };
    for (size_t s = 0; s < n; ++s) {
        const Switch& sw = cluster.switches[s];
        f.uplink_Bps[s] = sw.uplink_Bps;
        for (const std::string& child : sw.switches)
            if (const int c = index_of(child); c >= 0) f.parent[static_cast<size_t>(c)] = static_cast<int>(s);
    }
    for (size_t i = 0; i < cluster.nodes.size(); ++i)
        if (!cluster.nodes[i].leaf_switch.empty()) f.leaf_of_node[i] = index_of(cluster.nodes[i].leaf_switch);
    return f;
}

void ClusterFabric::uplinks_between(int x, int y, std::vector<int>& up, std::vector<int>& down) const {
    up.clear();
    down.clear();
    int a = leaf_of_node[static_cast<size_t>(x)], b = leaf_of_node[static_cast<size_t>(y)];
    if (a < 0 || b < 0 || a == b) return;
    // Climb both sides to their lowest common switch; trees here are a few levels deep. The
    // depth bound keeps a malformed tree (Topology::finalize rejects cycles) from looping.
    const int bound = static_cast<int>(parent.size());
    auto depth = [&](int s) {
        int d = 0;
        for (int p = parent[static_cast<size_t>(s)]; p >= 0 && d <= bound; p = parent[static_cast<size_t>(p)]) ++d;
        return d;
    };
    auto climb = [&](int& s, std::vector<int>& out) {
        if (uplink_Bps[static_cast<size_t>(s)] > 0) out.push_back(s);
        s = parent[static_cast<size_t>(s)];
    };
    int da = depth(a), db = depth(b);
    for (; da > db; --da) climb(a, up);
    for (; db > da; --db) climb(b, down);
    while (a != b && a >= 0 && b >= 0) {
        climb(a, up);
        climb(b, down);
    }
}

FabricShares::FabricShares(const std::vector<ClusterFabric>& fabrics) : fabrics_(fabrics) {}

FabricShares::Load* FabricShares::find(int cluster, int sw) {
    for (Load& l : loads_)
        if (l.cluster == cluster && l.sw == sw) return &l;
    return nullptr;
}

void FabricShares::add(const StageCell& x, const StageCell& y) {
    if (x.cluster != y.cluster || x.node == y.node) return;
    fabrics_[static_cast<size_t>(x.cluster)].uplinks_between(x.node, y.node, up_, down_);
    auto load = [&](int sw) -> Load& {
        if (Load* l = find(x.cluster, sw)) return *l;
        loads_.push_back({x.cluster, sw, 0, 0});
        return loads_.back();
    };
    for (int s : up_) ++load(s).up;
    for (int s : down_) ++load(s).down;
}

double FabricShares::per_crossing_Bps(const StageCell& x, const StageCell& y) {
    double share = std::numeric_limits<double>::infinity();
    if (x.cluster != y.cluster || x.node == y.node) return share;
    const ClusterFabric& f = fabrics_[static_cast<size_t>(x.cluster)];
    f.uplinks_between(x.node, y.node, up_, down_);
    // At least the message itself uses each uplink, added or not.
    for (int s : up_) {
        const Load* l = find(x.cluster, s);
        share = std::min(share, f.uplink_Bps[static_cast<size_t>(s)] / std::max(1, l ? l->up : 0));
    }
    for (int s : down_) {
        const Load* l = find(x.cluster, s);
        share = std::min(share, f.uplink_Bps[static_cast<size_t>(s)] / std::max(1, l ? l->down : 0));
    }
    return share;
}

}  // namespace spiderflow::cost
