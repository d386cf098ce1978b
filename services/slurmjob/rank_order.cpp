#include "services/slurmjob/rank_order.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/util/errors.h"

namespace spiderflow::slurmjob {

NodeLocation locate_node(const Topology* topology, const std::string& node_name) {
    if (topology == nullptr) return {};
    for (size_t c = 0; c < topology->clusters.size(); ++c) {
        const auto& nodes = topology->clusters[c].nodes;
        for (size_t n = 0; n < nodes.size(); ++n) {
            if (nodes[n].name == node_name) return {static_cast<int>(c), static_cast<int>(n)};
        }
    }
    return {};
}

std::vector<std::string> topology_node_order(const std::vector<std::string>& step_nodes, const Topology* topology,
                                             const std::vector<std::string>& cluster_order) {
    using Key = std::tuple<int, int, int>;  // cluster rank, position in Cluster::node_order, slurm position
    std::vector<std::pair<Key, std::string>> keyed;
    const int big = 1 << 30;
    std::map<int, std::vector<int>> position_of;  // cluster -> node index -> position in its node order
    for (size_t i = 0; i < step_nodes.size(); ++i) {
        const NodeLocation loc = locate_node(topology, step_nodes[i]);
        if (loc.cluster < 0) {
            keyed.push_back({{big, 0, static_cast<int>(i)}, step_nodes[i]});
            continue;
        }
        const Cluster& cl = topology->clusters[static_cast<size_t>(loc.cluster)];
        int cluster_rank = static_cast<int>(cluster_order.size()) + loc.cluster;
        for (size_t k = 0; k < cluster_order.size(); ++k) {
            if (cluster_order[k] == cl.name) {
                cluster_rank = static_cast<int>(k);
                break;
            }
        }
        auto [it, fresh] = position_of.try_emplace(loc.cluster);
        if (fresh) {
            const std::vector<int>& order = cl.node_order();
            it->second.resize(order.size());
            for (size_t p = 0; p < order.size(); ++p)
                it->second[static_cast<size_t>(order[p])] = static_cast<int>(p);
        }
        keyed.push_back({{cluster_rank, it->second[static_cast<size_t>(loc.node)], static_cast<int>(i)}, step_nodes[i]});
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    out.reserve(keyed.size());
    for (auto& k : keyed) out.push_back(std::move(k.second));
    return out;
}

std::vector<int> gpu_order(const Node* node, int local_tasks) {
    std::vector<int> order(static_cast<size_t>(std::max(local_tasks, 0)));
    for (int i = 0; i < local_tasks; ++i) order[static_cast<size_t>(i)] = i;
    if (node == nullptr || node->gpu_slots.empty()) return order;
    // Only the GPUs this step can see (the first local_tasks device indices) are reordered.
    std::vector<std::pair<int, int>> by_domain;  // (domain, device)
    for (int i = 0; i < local_tasks; ++i) {
        int domain = 0;
        for (const auto& s : node->gpu_slots) {
            if (s.index == i) domain = s.nvlink_domain;
        }
        by_domain.push_back({domain, i});
    }
    std::stable_sort(by_domain.begin(), by_domain.end());
    for (size_t i = 0; i < by_domain.size(); ++i) order[i] = by_domain[i].second;
    return order;
}

std::vector<RankSlot> plan_rank_slots(const Plan& plan, const Topology& topology,
                                      const std::vector<std::string>& step_nodes) {
    const std::vector<RankPlacement> ranks = plan.ranks();
    // Plan nodes in order of their first rank.
    std::vector<std::string> plan_nodes;
    std::map<std::string, std::vector<int>> ranks_of;  // plan node -> its ranks, ascending
    for (const auto& r : ranks) {
        if (r.cluster < 0 || r.cluster >= static_cast<int>(topology.clusters.size()) || r.node < 0 ||
            r.node >= static_cast<int>(topology.clusters[static_cast<size_t>(r.cluster)].nodes.size())) {
            throw InputError("plan", 0, "cells", "rank " + std::to_string(r.rank) + " is on a node the topology lacks");
        }
        const std::string& name = topology.clusters[static_cast<size_t>(r.cluster)].nodes[static_cast<size_t>(r.node)].name;
        if (ranks_of.find(name) == ranks_of.end()) plan_nodes.push_back(name);
        ranks_of[name].push_back(r.rank);
    }
    if (plan_nodes.size() > step_nodes.size()) {
        throw InputError("step", 0, "SLURM_STEP_NODELIST", "the plan uses " + std::to_string(plan_nodes.size()) +
                                                               " nodes, the step has " + std::to_string(step_nodes.size()));
    }
    std::set<std::string> in_step(step_nodes.begin(), step_nodes.end());
    std::set<std::string> taken;
    for (const auto& n : plan_nodes) {
        if (in_step.count(n)) taken.insert(n);
    }
    std::vector<std::string> spare;
    for (const auto& n : topology_node_order(step_nodes, &topology, {})) {
        if (!taken.count(n)) spare.push_back(n);
    }
    std::vector<RankSlot> slots(ranks.size());
    size_t next_spare = 0;
    for (const auto& plan_node : plan_nodes) {
        const std::string node = in_step.count(plan_node) ? plan_node : spare[next_spare++];
        const NodeLocation loc = locate_node(&topology, node);
        const Node* n = loc.cluster >= 0 ? &topology.clusters[static_cast<size_t>(loc.cluster)].nodes[static_cast<size_t>(loc.node)]
                                         : nullptr;
        const auto& mine = ranks_of[plan_node];
        // The step sees only its own GPUs (device indices 0..k-1): the plan's GPU numbers on this
        // node, in order, are those k devices, NVLink domains grouped.
        std::vector<int> gpus;
        for (int r : mine) gpus.push_back(ranks[static_cast<size_t>(r)].gpu);
        std::sort(gpus.begin(), gpus.end());
        gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
        const std::vector<int> devices = gpu_order(n, static_cast<int>(gpus.size()));
        for (size_t i = 0; i < mine.size(); ++i) {
            const int gpu = ranks[static_cast<size_t>(mine[i])].gpu;
            const auto k = static_cast<size_t>(std::lower_bound(gpus.begin(), gpus.end(), gpu) - gpus.begin());
            slots[static_cast<size_t>(mine[i])] = {node, static_cast<int>(i), devices[k]};
        }
    }
    return slots;
}

std::vector<RankSlot> ordered_rank_slots(const std::vector<std::string>& slurm_nodes, const std::vector<int>& tasks_per_node,
                                         const Topology* topology, const std::vector<std::string>& cluster_order) {
    if (tasks_per_node.size() != slurm_nodes.size()) {
        throw InputError("step", 0, "SLURM_STEP_TASKS_PER_NODE",
                         std::to_string(tasks_per_node.size()) + " counts for " + std::to_string(slurm_nodes.size()) +
                             " nodes");
    }
    std::map<std::string, int> tasks_of;
    for (size_t i = 0; i < slurm_nodes.size(); ++i) tasks_of[slurm_nodes[i]] = tasks_per_node[i];
    std::vector<RankSlot> slots;
    for (const auto& node : topology_node_order(slurm_nodes, topology, cluster_order)) {
        const NodeLocation loc = locate_node(topology, node);
        const Node* n = loc.cluster >= 0 ? &topology->clusters[static_cast<size_t>(loc.cluster)].nodes[static_cast<size_t>(loc.node)]
                                         : nullptr;
        const std::vector<int> devices = gpu_order(n, tasks_of[node]);
        for (int l = 0; l < tasks_of[node]; ++l) slots.push_back({node, l, devices[static_cast<size_t>(l)]});
    }
    return slots;
}

}  // namespace spiderflow::slurmjob
