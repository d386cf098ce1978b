// check_topology(): any Topology, finalized or not (see checks.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "common/topology/checks.h"
#include "common/topology/checks_tree.h"

namespace spiderflow {
namespace {

using checks::name_list;

std::string cluster_name(const Topology& t, int i) {
    if (i < 0 || i >= static_cast<int>(t.clusters.size())) return "#" + std::to_string(i);
    return t.clusters[static_cast<size_t>(i)].name;
}

void check_cluster(const Cluster& c, std::vector<Finding>& out) {
    const std::string ctx = "cluster " + c.name + ": ";
    if (c.total_gpus() == 0)
        out.push_back({Severity::warning, "cluster " + c.name, "has no GPUs", "list its GPU nodes (gpus, gpu_type), or drop the cluster", ""});
    std::vector<std::string> untyped, bad_slots;
    for (const auto& n : c.nodes) {
        if (n.gpus > 0 && n.gpu_type.empty()) untyped.push_back(n.name);
        if (!n.gpu_slots.empty() && static_cast<int>(n.gpu_slots.size()) != n.gpus) bad_slots.push_back(n.name);
    }
    if (!untyped.empty())
        out.push_back({Severity::warning, ctx + name_list(untyped, "node", "nodes"), "has GPUs of unknown type: the cost model cannot rate them",
                       "set gpu_type to a catalog name (spiderflow catalog lists them)", ""});
    if (!bad_slots.empty())
        out.push_back({Severity::error, ctx + name_list(bad_slots, "node", "nodes"), "per-GPU locality lists a different number of GPUs than its GPU count",
                       "make the GPU count match the hardware (re-export hwloc XML of the node)", ""});

    if (c.switches.empty()) return;
    // Membership is the union of switch node lists and each node's leaf_switch.
    checks::TreeInput tree;
    tree.context = ctx;
    tree.slurm_syntax = false;
    std::map<std::string, size_t> sw_index;
    for (const auto& s : c.switches) {
        sw_index.emplace(s.name, tree.switches.size());
        tree.switches.push_back({s.name, s.switches, s.nodes, ""});
    }
    std::vector<std::string> unknown_leaf;
    for (const auto& n : c.nodes) {
        tree.nodes.push_back(n.name);
        if (n.leaf_switch.empty()) continue;
        auto it = sw_index.find(n.leaf_switch);
        if (it == sw_index.end()) {
            unknown_leaf.push_back(n.name);
            continue;
        }
        auto& listed = tree.switches[it->second].nodes;
        if (std::find(listed.begin(), listed.end(), n.name) == listed.end()) listed.push_back(n.name);
    }
    if (!unknown_leaf.empty())
        out.push_back({Severity::error, ctx + name_list(unknown_leaf, "node", "nodes"), "hangs off a switch that is not defined",
                       "define the switch or correct the node's switch name", ""});
    checks::check_switch_tree(tree, out);
}

// Union-find over clusters joined by usable links.
struct Components {
    std::vector<int> parent;
    explicit Components(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
    int find(int x) {
        while (parent[static_cast<size_t>(x)] != x) x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
        return x;
    }
    void join(int a, int b) { parent[static_cast<size_t>(find(a))] = find(b); }
};

void check_links(const Topology& t, std::vector<Finding>& out) {
    const int n = static_cast<int>(t.clusters.size());
    Components comp(static_cast<size_t>(n));
    for (const auto& l : t.links) {
        const std::string what = "link " + cluster_name(t, l.a) + "<->" + cluster_name(t, l.b);
        if (l.a < 0 || l.a >= n || l.b < 0 || l.b >= n) {
            out.push_back({Severity::error, what, "joins a cluster that does not exist", "correct the cluster names of the link", ""});
            continue;
        }
        if (l.a == l.b) {
            out.push_back({Severity::error, what, "joins a cluster to itself", "remove the link (intra-cluster figures go on the cluster)", ""});
            continue;
        }
        bool usable = true;
        if (!std::isfinite(l.bandwidth_Bps) || l.bandwidth_Bps <= 0) {
            out.push_back({Severity::error, what, "has no bandwidth figure (0 or invalid): the pair is shown as linked but nothing can cross",
                           "measure it (spiderflow-probe wan) and set gbps, or remove the link", ""});
            usable = false;
        }
        if (!std::isfinite(l.latency_s) || l.latency_s < 0) {
            out.push_back({Severity::error, what, "has an invalid latency", "set latency_ms to the measured round-trip half", ""});
            usable = false;
        } else if (l.latency_s == 0) {
            out.push_back({Severity::warning, what, "has latency 0: a missing figure, as no two sites are 0 ms apart",
                           "measure it (spiderflow-probe wan) and set latency_ms", ""});
        }
        if (usable) comp.join(l.a, l.b);
    }
    if (n < 2) return;
    std::map<int, std::vector<std::string>> groups;
    for (int i = 0; i < n; ++i) groups[comp.find(i)].push_back(cluster_name(t, i));
    if (groups.size() < 2) return;
    // The largest group is the federation; every other group has no path to it.
    auto main = groups.begin();
    for (auto it = groups.begin(); it != groups.end(); ++it)
        if (it->second.size() > main->second.size()) main = it;
    for (auto it = groups.begin(); it != groups.end(); ++it) {
        if (it == main) continue;
        out.push_back({Severity::error, name_list(it->second, "cluster", "clusters"),
                       "no path to " + name_list(main->second, "cluster", "clusters") + ": no job can span them",
                       "add a link (with measured gbps and latency_ms) between " + it->second.front() + " and one of " + main->second.front() +
                           "'s group, or check a misspelled cluster name in links",
                       ""});
    }
}

}  // namespace

const char* severity_name(Severity s) { return s == Severity::error ? "error" : "warning"; }

size_t count_errors(const std::vector<Finding>& findings) {
    size_t n = 0;
    for (const auto& f : findings) n += f.severity == Severity::error ? 1 : 0;
    return n;
}

std::vector<Finding> check_topology(const Topology& topo) {
    std::vector<Finding> out;
    for (const auto& c : topo.clusters) check_cluster(c, out);
    check_links(topo, out);
    return out;
}

}  // namespace spiderflow
