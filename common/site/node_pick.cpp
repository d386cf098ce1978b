#include "common/site/node_pick.h"

#include <algorithm>
#include <map>
#include <set>

namespace spiderflow {
namespace {

// A run of candidate nodes under one leaf switch (or one switchless node).
struct Group {
    std::string leaf;
    std::vector<int> nodes;   // candidates, ascending index
};

// Each switch's parent, to measure how far apart two leaves are in the tree.
std::map<std::string, std::string> parents(const Cluster& cluster) {
    std::map<std::string, std::string> up;
    for (const auto& sw : cluster.switches) {
        for (const auto& child : sw.switches) up[child] = sw.name;
    }
    return up;
}

// Hops up from a to the lowest common ancestor of a and b (0: same leaf); leaves without a
// common switch, or switchless nodes, are as far as the tree is deep plus one.
int distance(const std::map<std::string, std::string>& up, const std::string& a, const std::string& b) {
    if (a == b && !a.empty()) return 0;
    std::vector<std::string> chain_a;
    for (std::string s = a; !s.empty();) {
        chain_a.push_back(s);
        auto it = up.find(s);
        s = it == up.end() ? "" : it->second;
    }
    int hops_b = 0;
    for (std::string s = b; !s.empty(); ++hops_b) {
        auto pos = std::find(chain_a.begin(), chain_a.end(), s);
        if (pos != chain_a.end()) return static_cast<int>(std::max<long>(pos - chain_a.begin(), hops_b));
        auto it = up.find(s);
        s = it == up.end() ? "" : it->second;
    }
    return static_cast<int>(std::max<size_t>(chain_a.size(), static_cast<size_t>(hops_b))) + 1;
}

int stage_size(const PickRequest& r) {
    return r.stages > 0 && r.nodes % r.stages == 0 && r.nodes >= r.stages ? r.nodes / r.stages : 1;
}

}  // namespace

NodePick describe_pick(const Cluster& cluster, std::vector<int> nodes, int stages) {
    std::sort(nodes.begin(), nodes.end());
    NodePick out;
    out.nodes = nodes;
    auto leaf_of = [&](int i) {
        const auto& n = cluster.nodes[static_cast<size_t>(i)];
        return n.leaf_switch.empty() ? "node:" + n.name : n.leaf_switch;
    };
    std::set<std::string> leaves;
    for (int i : nodes) leaves.insert(leaf_of(i));
    out.leaf_switches = static_cast<int>(leaves.size());
    // Ranks follow the cluster's leaf-switch order (node_order, as rank_order.h numbers a step).
    std::vector<int> position(cluster.nodes.size(), 0);
    const auto& order = cluster.node_order();
    for (size_t p = 0; p < order.size(); ++p) position[static_cast<size_t>(order[p])] = static_cast<int>(p);
    std::vector<int> ranked = nodes;
    std::sort(ranked.begin(), ranked.end(), [&](int a, int b) { return position[static_cast<size_t>(a)] < position[static_cast<size_t>(b)]; });
    const int k = stage_size(PickRequest{static_cast<int>(nodes.size()), 0, stages});
    for (size_t s = 0; k > 1 && s + k <= ranked.size(); s += static_cast<size_t>(k)) {
        std::set<std::string> in_stage;
        for (size_t j = s; j < s + static_cast<size_t>(k); ++j) in_stage.insert(leaf_of(ranked[j]));
        if (in_stage.size() > 1) ++out.split_stages;
    }
    return out;
}

std::optional<NodePick> pick_nodes(const Cluster& cluster, const std::vector<int>& free_gpus,
                                   const std::vector<bool>& allowed, const PickRequest& request) {
    if (request.nodes <= 0 || free_gpus.size() != cluster.nodes.size()) return std::nullopt;
    // Candidates grouped by leaf switch, groups in the cluster's fill order.
    std::vector<Group> groups;
    std::map<std::string, size_t> group_of;
    for (int i : cluster.node_order()) {
        const size_t u = static_cast<size_t>(i);
        if (!allowed.empty() && (u >= allowed.size() || !allowed[u])) continue;
        if (free_gpus[u] < std::max(request.gpus_per_node, 0)) continue;
        const auto& node = cluster.nodes[u];
        const std::string key = node.leaf_switch.empty() ? "node:" + node.name : node.leaf_switch;
        auto [it, fresh] = group_of.emplace(key, groups.size());
        if (fresh) groups.push_back(Group{node.leaf_switch, {}});
        groups[it->second].nodes.push_back(i);
    }
    size_t total = 0;
    for (auto& g : groups) {
        std::sort(g.nodes.begin(), g.nodes.end());
        total += g.nodes.size();
    }
    if (total < static_cast<size_t>(request.nodes)) return std::nullopt;

    const int k = stage_size(request);
    const auto up = parents(cluster);
    std::vector<bool> used(groups.size(), false);
    std::vector<int> chosen;
    int remaining = request.nodes;
    std::string last_leaf;
    bool first = true;
    while (remaining > 0) {
        // One switch that holds all that is left: the smallest such (best fit keeps big free
        // switches whole for later jobs), nearest to the last one.
        // Otherwise the switch holding the most whole stages, nearest first among equals.
        size_t best = groups.size();
        auto better = [&](size_t a, size_t b) {
            if (b == groups.size()) return true;
            const int ca = static_cast<int>(groups[a].nodes.size()), cb = static_cast<int>(groups[b].nodes.size());
            const bool fa = ca >= remaining, fb = cb >= remaining;
            if (fa != fb) return fa;
            const int da = first ? 0 : distance(up, last_leaf, groups[a].leaf);
            const int db = first ? 0 : distance(up, last_leaf, groups[b].leaf);
            if (fa) return ca != cb ? ca < cb : da < db;
            const int sa = std::min(ca, remaining) / k, sb = std::min(cb, remaining) / k;
            if (sa != sb) return sa > sb;
            if (da != db) return da < db;
            return ca > cb;
        };
        for (size_t g = 0; g < groups.size(); ++g) {
            if (!used[g] && better(g, best)) best = g;
        }
        if (best == groups.size()) return std::nullopt;
        used[best] = true;
        const auto& g = groups[best].nodes;
        int take = std::min(static_cast<int>(g.size()), remaining);
        // Whole stages only, unless this switch is all that is left or holds less than a stage.
        if (take < remaining && take >= k) {
            size_t rest = 0;
            for (size_t o = 0; o < groups.size(); ++o) rest += used[o] ? 0 : groups[o].nodes.size();
            const int whole = take - take % k;
            if (rest >= static_cast<size_t>(remaining - whole)) take = whole;
        }
        chosen.insert(chosen.end(), g.begin(), g.begin() + take);
        remaining -= take;
        last_leaf = groups[best].leaf;
        first = false;
    }
    return describe_pick(cluster, chosen, request.stages);
}

std::optional<NodePick> pick_nodes(const SiteState& state, int cluster, SiteTime t, const std::vector<bool>& allowed,
                                   const PickRequest& request) {
    const Cluster& c = state.topology().clusters.at(static_cast<size_t>(cluster));
    std::vector<int> free(c.nodes.size(), 0);
    for (size_t i = 0; i < c.nodes.size(); ++i) free[i] = state.free_gpus(NodeRef{cluster, static_cast<int>(i)}, t);
    return pick_nodes(c, free, allowed, request);
}

}  // namespace spiderflow
