// greedy: Atlas-style placement (Palak, Reddy, Kataria, Gandhi, Tandon, Bhattacherjee,
// Padmanabhan, "Improving training time and GPU utilization in geo-distributed language model
// training", arXiv 2411.14458, 2024: the Atlas system). Atlas keeps data parallelism inside a
// datacenter and lets only pipeline-parallel traffic cross the WAN; datacenters are chosen
// greedily. Here: start at the cluster with the most compute, repeatedly take the unvisited
// cluster with the widest path from the last one, and give each as many whole pipeline stages
// (all dp replicas of a stage) as its slots hold, until every stage has a home. Stages that no
// remaining cluster can hold whole are spread over the chain. Each shape is scored by the
// cost model; the best wins.
#pragma once

#include <memory>

#include "common/planner/planner.h"

namespace spiderflow {

class GreedyPolicy : public PlannerPolicy {
public:
    std::string name() const override { return "greedy"; }
    PlanResult plan(const PlanRequest& request, const CostModel& cost) const override;
};

std::unique_ptr<PlannerPolicy> make_greedy();

}  // namespace spiderflow
