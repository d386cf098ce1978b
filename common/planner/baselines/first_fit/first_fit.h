// first-fit: topology-oblivious placement, what Slurm alone would do. GPUs are filled in
// cluster order, node by node (make_sequential_plan), layers split evenly; only the shape is
// chosen, the one the cost model likes best for that fill.
#pragma once

#include <memory>

#include "common/planner/planner.h"

namespace spiderflow {

class FirstFitPolicy : public PlannerPolicy {
public:
    std::string name() const override { return "first-fit"; }
    PlanResult plan(const PlanRequest& request, const CostModel& cost) const override;
};

std::unique_ptr<PlannerPolicy> make_first_fit();

}  // namespace spiderflow
