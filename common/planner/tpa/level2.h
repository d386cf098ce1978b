// TPA level 2, inside one cluster: which GPU type (node group) serves each stage's cells and,
// for the stages whose every replica lives here, how the cluster's layers split between them,
// minimising the slowest stage under memory limits. Exact with a CBC ILP (common/milp) when the
// cluster mixes GPU types, a direct assignment when it does not. Clusters are independent, so
// place_all() solves them in parallel threads; results never depend on thread timing.
#pragma once

#include <string>
#include <vector>

#include "common/milp/model.h"
#include "common/planner/tpa/inventory.h"
#include "common/planner/tpa/level1.h"

namespace spiderflow::tpa {

struct ClusterDemand {
    int cluster = -1;
    std::vector<int> stage_cells;  // size pp: how many cells (replicas) of each stage live here
};

struct Placement {
    bool ok = false;
    std::string why;                       // when !ok: what did not fit
    bool used_ilp = false;
    milp::SolveStatus status = milp::SolveStatus::optimal;
    // stage_slots[s]: the slots of stage s's cells in this cluster, in replica order.
    std::vector<std::vector<Slot>> stage_slots;
    std::vector<double> stage_flops;       // slowest GPU serving stage s here (0 = none)
    std::vector<double> stage_memory;      // smallest GPU memory serving stage s here
    std::vector<int> owned_layers;         // ILP's layers for stages owned here, -1 otherwise
};

struct Level2Options {
    bool exact = true;                     // CBC for mixed-type clusters; false = greedy only
    milp::SolveOptions solver{2.0, 1e-3, 1, false};
    int threads = 2;
};

// layers: the current (level 1) layers per stage; dp: replicas in the whole plan.
Placement place_in_cluster(const ClusterInventory& inventory, const ClusterDemand& demand,
                           const std::vector<int>& layers, const MemoryModel& memory, int dp,
                           const Level2Options& options);

std::vector<Placement> place_all(const std::vector<const ClusterInventory*>& inventories,
                                 const std::vector<ClusterDemand>& demands, const std::vector<int>& layers,
                                 const MemoryModel& memory, int dp, const Level2Options& options);

}  // namespace spiderflow::tpa
