// Draws a plan as a standalone SVG: each cluster the plan uses is a box with its GPUs
// (coloured by pipeline stage), pipelines crossing clusters are arrows labelled with the link
// bandwidth and the bytes per iteration, cross-cluster DP all-reduce edges are dashed lines.
#pragma once

#include <string>

#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow {

std::string plan_to_svg(const Plan& plan, const Topology& topology);

}  // namespace spiderflow
