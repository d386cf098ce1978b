// What one cluster offers a shape with a given tp: its TP slots (tp consecutive GPUs inside one
// NVLink domain of one node), grouped by GPU type. TPA places (stage, replica) cells on slots.
#pragma once

#include <string>
#include <vector>

#include "common/cost/cost_model.h"
#include "common/topology/topology.h"

namespace spiderflow::tpa {

struct Slot {
    int node = -1;
    int first_gpu = 0;
};

struct SlotGroup {
    std::string gpu_type;
    double flops = 0;            // achievable FLOP/s of one GPU (peak * efficiency)
    double memory_bytes = 0;     // usable bytes of one GPU (headroom applied)
    std::vector<Slot> slots;     // Cluster::node_order, so neighbouring cells share a leaf switch
};

struct ClusterInventory {
    int cluster = -1;
    int tp = 1;
    std::vector<SlotGroup> groups;  // fastest type first; ties by name

    int slots() const;
    // Mean per-GPU FLOP/s of the `count` fastest slots (what `count` cells would get at best).
    double best_flops(int count) const;
    double total_flops() const;   // per-GPU FLOP/s summed over slots (one GPU of each TP group)
    double max_memory() const;
};

// Nodes whose GPU type is missing from the catalog offer no slots (the cost model reports them).
ClusterInventory build_inventory(const Topology& topology, const CostModel& cost, int cluster, int tp);

}  // namespace spiderflow::tpa
