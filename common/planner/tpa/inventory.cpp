#include "common/planner/tpa/inventory.h"

#include <algorithm>
#include <map>
#include <vector>

namespace spiderflow::tpa {

int ClusterInventory::slots() const {
    int n = 0;
    for (const SlotGroup& g : groups) n += static_cast<int>(g.slots.size());
    return n;
}

double ClusterInventory::best_flops(int count) const {
    if (count <= 0) return 0;
    double sum = 0;
    int left = count;
    for (const SlotGroup& g : groups) {
        const int take = std::min(left, static_cast<int>(g.slots.size()));
        sum += take * g.flops;
        left -= take;
        if (left == 0) break;
    }
    return sum / (count - left > 0 ? count - left : 1);
}

double ClusterInventory::total_flops() const {
    double sum = 0;
    for (const SlotGroup& g : groups) sum += g.flops * static_cast<double>(g.slots.size());
    return sum;
}

double ClusterInventory::max_memory() const {
    double m = 0;
    for (const SlotGroup& g : groups) m = std::max(m, g.memory_bytes);
    return m;
}

ClusterInventory build_inventory(const Topology& topology, const CostModel& cost, int cluster, int tp) {
    ClusterInventory inv;
    inv.cluster = cluster;
    inv.tp = tp;
    std::map<std::string, size_t> by_type;
    const Cluster& c = topology.clusters[static_cast<size_t>(cluster)];
    for (const int ni : c.node_order()) {
        const Node& node = c.nodes[static_cast<size_t>(ni)];
        const GpuType* g = cost.catalog().gpu(node.gpu_type);
        const std::vector<int> firsts = tp_group_first_gpus(node, tp);
        if (!g || firsts.empty()) continue;
        auto [it, inserted] = by_type.try_emplace(g->name, inv.groups.size());
        if (inserted) {
            SlotGroup group;
            group.gpu_type = g->name;
            group.flops = g->peak_flops * g->efficiency;
            group.memory_bytes = g->memory_bytes * cost.options().memory_headroom;
            inv.groups.push_back(group);
        }
        SlotGroup& group = inv.groups[it->second];
        for (const int first : firsts) group.slots.push_back(Slot{ni, first});
    }
    std::stable_sort(inv.groups.begin(), inv.groups.end(), [](const SlotGroup& a, const SlotGroup& b) {
        if (a.flops != b.flops) return a.flops > b.flops;
        return a.gpu_type < b.gpu_type;
    });
    return inv;
}

}  // namespace spiderflow::tpa
