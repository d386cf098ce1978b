// The one iteration-time and memory model; every planner, baseline and simulator scores with it.
#pragma once

#include "common/model/catalog.h"
#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow {

struct CostOptions {
    double dp_overlap = 0.5;         // fraction of the DP all-reduce hidden behind backward
    double tp_overlap = 0.0;         // fraction of TP all-reduce hidden behind compute
    double memory_headroom = 0.9;    // usable fraction of GPU memory (allocator, CUDA context)
};

class CostModel {
public:
    CostModel(const Topology& topology, const Catalog& catalog, CostOptions options = {});

    // Iteration time with breakdown and memory per GPU. A plan that does not fit memory, or that
    // references GPUs that do not exist, comes back with feasible = false and the reason.
    Prediction estimate(const Plan& plan) const;

    const Topology& topology() const { return topology_; }
    const Catalog& catalog() const { return catalog_; }
    const CostOptions& options() const { return options_; }

private:
    const Topology& topology_;
    const Catalog& catalog_;
    CostOptions options_;
};

}  // namespace spiderflow
