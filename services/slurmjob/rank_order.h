// Rank order at step launch follows the topology, not node names: srun numbers nodes in
// Slurm's order (alphabetical/config order), and NCCL builds rings from the rank order it is
// given, so ranks are grouped by cluster (as the plan orders them), then leaf switch, then node,
// and inside a node by NVLink domain.
#pragma once

#include <string>
#include <vector>

#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow::slurmjob {

// Where a node sits in the topology; cluster/node are -1 when the topology does not know it.
struct NodeLocation {
    int cluster = -1;
    int node = -1;
};
NodeLocation locate_node(const Topology* topology, const std::string& node_name);

// The step's nodes in rank order. cluster_order lists cluster names as the plan uses them
// (first = stage 0); clusters not listed follow in topology order; unknown nodes go last in
// Slurm's order. Inside a cluster, nodes follow Cluster::node_order (leaf-switch groups).
std::vector<std::string> topology_node_order(const std::vector<std::string>& step_nodes, const Topology* topology,
                                             const std::vector<std::string>& cluster_order);

// Device index for each local task (index = local task id): GPUs of one NVLink domain are
// consecutive. Without locality facts it is the identity.
std::vector<int> gpu_order(const Node* node, int local_tasks);

// Where one rank runs: the one rank order that the plan's rank table, the SPANK plugin's RANK and
// `spiderflow launch`'s host list all come from.
struct RankSlot {
    std::string node;    // a node of the step
    int local = 0;       // position among the ranks of that node, in rank order (= SLURM_LOCALID
                         // when Slurm places tasks in this order)
    int device = 0;      // physical device index on that node (NVLink domains grouped)
};

// From the plan: rank r runs where Plan::ranks()[r] says. Plan nodes that are in the step keep
// their node; the others take the step's remaining nodes in topology order (Slurm may have given
// the job other nodes than the planner saw). Throws InputError when the step has fewer nodes than
// the plan or the topology lacks a plan node.
std::vector<RankSlot> plan_rank_slots(const Plan& plan, const Topology& topology,
                                      const std::vector<std::string>& step_nodes);

// Without a plan: the step's nodes in topology order, consecutive ranks per node.
std::vector<RankSlot> ordered_rank_slots(const std::vector<std::string>& slurm_nodes, const std::vector<int>& tasks_per_node,
                                         const Topology* topology, const std::vector<std::string>& cluster_order);

}  // namespace spiderflow::slurmjob
