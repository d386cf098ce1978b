// Which nodes of one cluster a planned job should get, among those free now: the choice
// select/spiderflow_cons_tres narrows cons_tres's candidates to. A SpiderFlow step numbers its
// ranks in the cluster's leaf-switch order (Cluster::node_order, rank_order.h) and a plan's ranks
// run tensor-parallel inside a node, then data-parallel, then pipeline stage by stage, so the
// nodes of stage s are the s-th run of nodes_per_stage chosen nodes in that order. The pick keeps
// each such run under one leaf switch where it can, spans as few leaf switches as the free nodes
// allow, and puts consecutive runs on switches close in the tree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/site/site_state.h"
#include "common/topology/topology.h"

namespace spiderflow {

struct PickRequest {
    int nodes = 0;
    int gpus_per_node = 0;   // a node is a candidate when this many GPUs are free on it
    int stages = 1;          // pipeline stages; nodes / stages per stage when it divides
};

struct NodePick {
    std::vector<int> nodes;              // indices into Cluster::nodes, ascending
    int leaf_switches = 0;               // distinct leaf switches the nodes hang off
    int split_stages = 0;                // stages whose nodes span more than one leaf switch
};

// free_gpus[i]: GPUs free now on cluster.nodes[i]; allowed (empty = all): nodes Slurm lets the
// job use. nullopt when fewer than `nodes` nodes qualify. The cluster must be finalized.
std::optional<NodePick> pick_nodes(const Cluster& cluster, const std::vector<int>& free_gpus,
                                   const std::vector<bool>& allowed, const PickRequest& request);
// The same over a SiteState: what is free on cluster `cluster` at time t.
std::optional<NodePick> pick_nodes(const SiteState& state, int cluster, SiteTime t, const std::vector<bool>& allowed,
                                   const PickRequest& request);

// Leaf switches and split stages of any node set, e.g. the one cons_tres chose alone, to
// compare placements on the same terms.
NodePick describe_pick(const Cluster& cluster, std::vector<int> nodes, int stages);

}  // namespace spiderflow
