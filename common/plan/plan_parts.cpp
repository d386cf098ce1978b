#include "common/plan/plan_parts.h"

#include <algorithm>
#include <map>

namespace spiderflow {

bool PlanPart::even() const {
    return !gpus_per_node.empty() &&
           std::all_of(gpus_per_node.begin(), gpus_per_node.end(), [&](int g) { return g == gpus_per_node.front(); });
}

std::vector<PlanPart> split_by_cluster(const Plan& plan, const Topology& topology) {
    std::vector<PlanPart> parts;
    std::map<int, size_t> part_of;                    // cluster -> index in parts
    std::map<std::pair<int, int>, size_t> node_slot;  // (cluster, node) -> index in its part's nodes
    // Each part becomes a Slurm job asking for these nodes and GPUs: they must exist and be
    // asked for once.
    plan.validate(&topology);
    for (const RankPlacement& r : plan.ranks()) {
        auto [it, fresh] = part_of.try_emplace(r.cluster, parts.size());
        if (fresh) {
            PlanPart p;
            p.cluster = r.cluster;
            p.cluster_name = topology.clusters[static_cast<size_t>(r.cluster)].name;
            parts.push_back(std::move(p));
        }
        PlanPart& part = parts[it->second];
        auto [slot, new_node] = node_slot.try_emplace({r.cluster, r.node}, part.nodes.size());
        if (new_node) {
            part.nodes.push_back(r.node);
            part.gpus_per_node.push_back(0);
        }
        ++part.gpus_per_node[slot->second];
        ++part.tasks;
        part.ranks.push_back(r.rank);
    }
    for (PlanPart& p : parts) {
        const bool contiguous = !p.ranks.empty() && p.ranks.back() - p.ranks.front() + 1 == static_cast<int>(p.ranks.size());
        p.rank_offset = contiguous ? p.ranks.front() : -1;
    }
    return parts;
}

}  // namespace spiderflow
