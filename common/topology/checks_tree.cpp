// The switch-tree check (see checks_tree.h): undefined or self references, cycles, nodes under
// no switch or under two, switches reaching no node, several roots (disconnected tiers).
#include "common/topology/checks_tree.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

namespace spiderflow::checks {

std::string where(const std::string& file, int line) {
    if (file.empty()) return {};
    return line > 0 ? file + ":" + std::to_string(line) : file;
}

std::string name_list(const std::vector<std::string>& names, const std::string& singular, const std::string& plural) {
    if (names.size() == 1) return singular + " " + names[0];
    std::string out = plural + " ";
    const size_t shown = names.size() <= 8 ? names.size() : 6;
    for (size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + names[i];
    if (shown < names.size()) out += ", ... (" + std::to_string(names.size()) + " in all)";
    return out;
}

void check_switch_tree(const TreeInput& in, std::vector<Finding>& out) {
    if (in.switches.empty()) return;
    const std::string& ctx = in.context;
    const bool slurm = in.slurm_syntax;
    const std::string file = slurm ? "topology.conf" : "the topology file";

    std::unordered_map<std::string, size_t> index;
    std::vector<std::string> switch_names;
    for (size_t i = 0; i < in.switches.size(); ++i) {
        const auto& s = in.switches[i];
        auto [it, fresh] = index.emplace(s.name, i);
        if (!fresh) {
            out.push_back({Severity::error, ctx + "switch " + s.name, "switch is defined twice (also at " +
                               (in.switches[it->second].where.empty() ? "an earlier entry" : in.switches[it->second].where) + ")",
                           "merge the two definitions into one", s.where});
        } else {
            switch_names.push_back(s.name);
        }
    }
    std::set<std::string> known_nodes(in.nodes.begin(), in.nodes.end());

    // Parent links among defined switches; bad references reported as we go.
    std::vector<std::vector<size_t>> children(in.switches.size());
    std::vector<std::vector<size_t>> parents(in.switches.size());
    for (size_t i = 0; i < in.switches.size(); ++i) {
        const auto& s = in.switches[i];
        if (index[s.name] != i) continue;  // duplicate, reported above
        for (const auto& c : s.children) {
            if (c == s.name) {
                out.push_back({Severity::error, ctx + "switch " + s.name, "switch lists itself among its child switches",
                               "remove '" + c + "' from its " + (slurm ? "Switches=" : "\"switches\""), s.where});
                continue;
            }
            auto it = index.find(c);
            if (it == index.end()) {
                std::string guess = did_you_mean(c, switch_names);
                out.push_back({Severity::error, ctx + "switch " + s.name,
                               "lists child switch '" + c + "', which is never defined: the fabric is shown as connected "
                               "through a switch that does not exist",
                               guess.empty() ? "define " + (slurm ? "SwitchName=" + c : "switch '" + c + "'") +
                                                   " with its nodes or switches, or remove it from the list"
                                             : "did you mean '" + guess + "'? correct the name in " + s.name + "'s " +
                                                   (slurm ? "Switches=" : "\"switches\""),
                               s.where});
                continue;
            }
            children[i].push_back(it->second);
            parents[it->second].push_back(i);
        }
    }

    // Nodes: nodes under no switch, under two leaf switches, and unknown names (a typo of an
    // orphan is the likeliest explanation, so orphans are offered first as the correction).
    std::map<std::string, std::vector<std::string>> node_switches;
    std::vector<std::pair<size_t, std::vector<std::string>>> unknown_by_switch;
    for (size_t i = 0; i < in.switches.size(); ++i) {
        const auto& s = in.switches[i];
        std::vector<std::string> unknown;
        for (const auto& n : s.nodes) {
            if (!known_nodes.count(n)) unknown.push_back(n);
            else if (std::find(node_switches[n].begin(), node_switches[n].end(), s.name) == node_switches[n].end())
                node_switches[n].push_back(s.name);
        }
        if (!unknown.empty()) unknown_by_switch.emplace_back(i, std::move(unknown));
    }
    std::vector<std::string> orphans;
    std::map<std::vector<std::string>, std::vector<std::string>> multi;  // switch set -> nodes
    for (const auto& n : in.nodes) {
        auto it = node_switches.find(n);
        if (it == node_switches.end()) orphans.push_back(n);
        else if (it->second.size() > 1) multi[it->second].push_back(n);
    }
    for (const auto& [i, unknown] : unknown_by_switch) {
        const auto& s = in.switches[i];
        std::string guess;
        if (unknown.size() == 1) {
            guess = did_you_mean(unknown[0], orphans);
            if (guess.empty()) guess = did_you_mean(unknown[0], in.nodes);
        }
        out.push_back({Severity::error, ctx + name_list(unknown, "node", "nodes"),
                       "listed under switch " + s.name + " but not defined " +
                           (slurm ? "by any NodeName= line in slurm.conf" : "in the cluster's nodes"),
                       guess.empty() ? (slurm ? "add a NodeName= line for it to slurm.conf, or remove it from " + s.name + "'s Nodes="
                                              : "add the node to the cluster, or remove it from switch " + s.name)
                                     : "did you mean '" + guess + "'? correct the name in " + s.name + "'s " +
                                           (slurm ? "Nodes=" : "\"nodes\""),
                       s.where});
    }
    if (!orphans.empty()) {
        out.push_back({Severity::error, ctx + name_list(orphans, "node", "nodes"),
                       slurm ? "in slurm.conf but under no switch of topology.conf: Slurm's topology/tree will not "
                               "place multi-node jobs on it, and our planner cannot tell where it sits"
                             : "under no switch although the cluster has a switch tree",
                       slurm ? "add it to its leaf switch's Nodes= in topology.conf" : "add it to its leaf switch's \"nodes\"",
                       ""});
    }
    for (const auto& [sws, nodes] : multi) {
        std::string joined;
        for (const auto& s : sws) joined += (joined.empty() ? "" : ", ") + s;
        out.push_back({Severity::warning, ctx + name_list(nodes, "node", "nodes"),
                       "listed under several switches (" + joined + "); a node hangs off one leaf switch",
                       "keep it under its real leaf switch only", ""});
    }

    // Cycles (a switch that is its own ancestor): iterative colour DFS.
    std::vector<int> colour(in.switches.size(), 0);
    std::set<std::string> cycle_reported;
    std::function<void(size_t, std::vector<size_t>&)> dfs = [&](size_t u, std::vector<size_t>& stack) {
        colour[u] = 1;
        stack.push_back(u);
        for (size_t v : children[u]) {
            if (colour[v] == 1) {
                std::string loop;
                auto from = std::find(stack.begin(), stack.end(), v);
                for (auto it = from; it != stack.end(); ++it) loop += in.switches[*it].name + " -> ";
                loop += in.switches[v].name;
                if (cycle_reported.insert(in.switches[v].name).second)
                    out.push_back({Severity::error, ctx + "switch " + in.switches[v].name,
                                   "switches form a loop (" + loop + "): the tree has no top", "remove one of the links in the loop",
                                   in.switches[v].where});
            } else if (colour[v] == 0 && stack.size() < 10000) {
                dfs(v, stack);
            }
        }
        stack.pop_back();
        colour[u] = 2;
    };
    for (size_t i = 0; i < in.switches.size(); ++i) {
        if (colour[i] == 0) {
            std::vector<size_t> stack;
            dfs(i, stack);
        }
    }

    // Nodes reachable below each switch (known nodes only), memoised; cycles cut by `busy`.
    std::vector<long> below(in.switches.size(), -1);
    std::vector<char> busy(in.switches.size(), 0);
    std::function<long(size_t, int)> count_below = [&](size_t u, int depth) -> long {
        if (below[u] >= 0) return below[u];
        if (busy[u] || depth > 10000) return 0;
        busy[u] = 1;
        long n = 0;
        for (const auto& node : in.switches[u].nodes) n += known_nodes.count(node) ? 1 : 0;
        for (size_t v : children[u]) n += count_below(v, depth + 1);
        busy[u] = 0;
        below[u] = n;
        return n;
    };
    for (size_t i = 0; i < in.switches.size(); ++i) {
        if (index[in.switches[i].name] != i) continue;
        if (count_below(i, 0) == 0)
            out.push_back({Severity::warning, ctx + "switch " + in.switches[i].name, "reaches no node",
                           slurm ? "list its nodes in Nodes= (or its child switches in Switches=), or delete the line"
                                 : "give it nodes or child switches, or remove it",
                           in.switches[i].where});
        if (parents[i].size() > 1) {
            std::string ps;
            for (size_t p : parents[i]) ps += (ps.empty() ? "" : ", ") + in.switches[p].name;
            out.push_back({Severity::warning, ctx + "switch " + in.switches[i].name,
                           "has several parent switches (" + ps + "); the switch tree is read as a tree",
                           "list it under one parent only", in.switches[i].where});
        }
    }

    // Roots: more than one means a tier that disconnects the fabric.
    std::vector<size_t> roots;
    for (size_t i = 0; i < in.switches.size(); ++i)
        // A stray switch with no nodes is reported above as reaching none; it disconnects nothing.
        if (index[in.switches[i].name] == i && parents[i].empty() && count_below(i, 0) > 0) roots.push_back(i);
    if (roots.size() > 1) {
        std::vector<std::string> names;
        std::string detail;
        for (size_t r : roots) {
            names.push_back(in.switches[r].name);
            detail += (detail.empty() ? "" : ", ") + in.switches[r].name + ": " + std::to_string(count_below(r, 0)) + " nodes";
        }
        std::string joined;
        for (const auto& n : names) joined += (joined.empty() ? "" : ",") + n;
        out.push_back({Severity::error, ctx + name_list(names, "switch", "switches"),
                       "the switch tree has " + std::to_string(roots.size()) + " top-level switches (" + detail +
                           ") that no switch joins: nodes under one cannot reach nodes under another through the fabric",
                       slurm ? "if a parent's Switches= has a typo, correct it; if they are connected, add a top switch: "
                               "SwitchName=top Switches=" + joined
                             : "if they are connected, add a top switch whose \"switches\" are " + joined,
                       in.switches[roots[1]].where});
    }
}

}  // namespace spiderflow::checks
