// The one iteration-time and memory model; every planner, baseline and simulator scores with it.
#pragma once

#include <string>
#include <vector>

#include "common/cost/fabric_shares.h"
#include "common/model/catalog.h"
#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow {

struct CostOptions {
    double dp_overlap = 0.5;         // fraction of the DP all-reduce hidden behind backward
    double tp_overlap = 0.0;         // fraction of TP all-reduce hidden behind compute
    double memory_headroom = 0.9;    // usable fraction of GPU memory (allocator, CUDA context)
    // Also estimate the same plan as if every GPU sat in one site (Prediction::scaling_efficiency);
    // doubles the work of estimate(), so planners scoring many candidates may turn it off.
    bool scaling_efficiency = true;
    // false: every crossing gets its path and its switch uplinks alone, as if nothing else sent at
    // the same time (the model of the published baselines, planner/baselines/published).
    bool link_sharing = true;
    // The memory choices (recomputation, sequence parallelism, FlashAttention) are the plan's own
    // (JobSpec), so a plan file re-prices exactly what was planned.
};

class CostModel {
public:
    CostModel(const Topology& topology, const Catalog& catalog, CostOptions options = {});

    // Iteration time with breakdown and memory per GPU. A plan that does not fit memory, is ill
    // formed on this topology (plan_problem) or runs on GPUs the catalog lacks comes back with
    // feasible = false and the reason; nothing is thrown. Its parts, one at a time:
    // common/cost/cost_parts.h.
    Prediction estimate(const Plan& plan) const;

    const Topology& topology() const { return topology_; }
    const Catalog& catalog() const { return catalog_; }
    const CostOptions& options() const { return options_; }

    // What the model knows about one node, looked up once at construction.
    struct NodeFacts {
        const GpuType* gpu = nullptr;   // nullptr when the node's GPU type is not in the catalog
        double network_Bps = 0;         // NICs summed, else the cluster's intra_bandwidth_Bps
        double local_Bps = 0;           // GPU to GPU inside the node: NVLink, else PCIe
        int nvlink_domain = 0;          // GPUs per NVLink domain (node.gpus when unknown)
    };
    // The facts of a cell's node; the cell must name an existing node (cost::estimate_problem).
    const NodeFacts& facts(const StageCell& c) const {
        return nodes_[static_cast<size_t>(c.cluster)][static_cast<size_t>(c.node)];
    }
    // Each cluster's switch tree with its uplink figures, indexed like Topology::clusters.
    const std::vector<cost::ClusterFabric>& fabrics() const { return fabrics_; }

private:
    Prediction estimate_impl(const Plan& plan, bool single_site) const;

    const Topology& topology_;
    const Catalog& catalog_;
    CostOptions options_;
    std::vector<std::vector<NodeFacts>> nodes_;  // [cluster][node]
    std::vector<cost::ClusterFabric> fabrics_;
};

}  // namespace spiderflow
