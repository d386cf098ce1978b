// Explains a plan to a person: where it runs, which traffic crosses which inter-cluster link
// and why, the bytes per iteration per link, and why it beat the runner-up.
#pragma once

#include <string>

#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow {

// runner_up: the best layout of another shape/orientation (PlanResult::runner_up), or null.
// note: the policy's note (solver status, limits), printed when not empty.
std::string plan_to_text(const Plan& plan, const Topology& topology, const Plan* runner_up = nullptr,
                         const std::string& note = "");

// "pipelines across clusters", "pipelines inside clusters, DP across", "one cluster" or
// "mixed": the orientation that the explanation and the runner-up comparison talk about.
std::string plan_orientation(const Plan& plan);

}  // namespace spiderflow
