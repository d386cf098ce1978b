// Bytes a plan moves between clusters per iteration, for the writers that explain a plan
// (text, SVG). Volumes only, from the plan and its model; how long they take is the cost
// model's business (common/cost), which sits above this layer.
#pragma once

#include <vector>

#include "common/plan/plan.h"

namespace spiderflow {

// Activations forward plus their gradients backward across one pipeline boundary of one
// replica, summed over the replica's micro-batches in one iteration.
double pp_boundary_bytes(const Plan& plan);
// Gradient bytes of one stage (all of its layers, whole TP group), the DP all-reduce payload.
double stage_gradient_bytes(const Plan& plan, int stage);

// Traffic between two clusters (a < b) per iteration, one direction of each link.
struct CrossTraffic {
    int a = -1;
    int b = -1;
    double pp_bytes = 0;          // pipeline boundaries that join a cell in a to a cell in b
    double dp_bytes = 0;          // cross-cluster all-reduce ring edges between a and b
    int pp_boundaries = 0;        // how many (replica, boundary) pairs cross
    int dp_stages = 0;            // how many stages' all-reduce uses this edge
};

// Every cluster pair that carries traffic, ordered by (a, b). The DP all-reduce of a stage
// whose replicas sit in k > 1 clusters is counted as a ring over those clusters in index
// order (hierarchical: reduce-scatter inside each, ring across, all-gather inside), each ring
// edge carrying 2 (k-1)/k of the stage's gradients; with hierarchical_dp off, each replica
// takes part in a flat ring and its edges are counted pairwise in replica order.
std::vector<CrossTraffic> cross_cluster_traffic(const Plan& plan);

// Distinct clusters holding a cell of `stage`, ascending.
std::vector<int> clusters_of_stage(const Plan& plan, int stage);

}  // namespace spiderflow
