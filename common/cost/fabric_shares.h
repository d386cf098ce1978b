// Concurrent crossings of leaf and spine switch uplinks inside a cluster during one traffic
// phase, and the bandwidth each crossing gets. The WAN has WanShares; this is the same idea one
// level down: a tapered (oversubscribed) fabric slows a job whose pipeline stages or DP rings
// straddle leaf switches, which is what keeping a stage under one leaf (select/spiderflow) buys.
// A switch without an uplink figure (uplink_Bps 0) counts as non-blocking and never limits.
#pragma once

#include <vector>

#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow::cost {

// One cluster's switch tree as the cost model walks it, built once per CostModel.
struct ClusterFabric {
    std::vector<int> leaf_of_node;    // switch index per node, -1 when the node has none
    std::vector<int> parent;          // per switch, -1 at the top
    std::vector<double> uplink_Bps;   // per switch, 0 = non-blocking / unknown

    static ClusterFabric of(const Cluster& cluster);
    // The switches whose uplinks a message from node x to node y climbs (x's side, `up`) and
    // descends (y's side, `down`) below their lowest common switch; limiting ones only.
    void uplinks_between(int x, int y, std::vector<int>& up, std::vector<int>& down) const;
};

class FabricShares {
public:
    explicit FabricShares(const std::vector<ClusterFabric>& fabrics);

    // One more concurrent message from cell x to cell y. Cells in different clusters or on one
    // node use no uplink inside a cluster and are ignored.
    void add(const StageCell& x, const StageCell& y);
    // What one message from x to y gets on its uplinks: each direction of an uplink split evenly
    // among the messages using it. Infinite when no limiting uplink lies on its way.
    double per_crossing_Bps(const StageCell& x, const StageCell& y);

private:
    struct Load {
        int cluster, sw;
        int up, down;   // messages climbing, descending its uplink
    };
    Load* find(int cluster, int sw);

    const std::vector<ClusterFabric>& fabrics_;
    std::vector<Load> loads_;      // few uplinks per phase: a flat vector beats a map
    std::vector<int> up_, down_;   // scratch, reused across calls
};

}  // namespace spiderflow::cost
