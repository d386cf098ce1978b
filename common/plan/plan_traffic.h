// Bytes a plan moves between clusters per iteration: the one definition of the flows every
// collective step puts on inter-cluster links. The coflow model (common/coflow/llm_traffic)
// builds its per-iteration DAG from these flows; the writers that explain a plan (text, SVG)
// and the planners sum them. Volumes and ring membership only: how long they take is the cost
// model's business (common/cost), which sits above this layer and prices these same bytes and
// rings, so a time and a byte count can never disagree about what moves.
//
// What is counted, and why it matches the cost model and the memory model:
// - PP: one activation tensor (micro-batch x sequence x hidden) per micro-batch, per replica
//   whose two cells of a boundary sit in different clusters, forward; its gradient backward.
// - DP: a stage's gradients, as many as the stage's weights on one cell times tp (every expert
//   counted: the plan has no expert-parallel degree, so each cell holds all experts of its
//   layers, as common/cost/memory.cpp assumes, and they are all-reduced like dense weights).
//   Hierarchical: reduce-scatter inside each cluster, a ring over the clusters holding the
//   stage (ascending index) for the all-reduce of the shards, each ring edge carrying
//   2 (k-1)/k of the gradients, all-gather inside. Flat (hierarchical_dp off): a ring over the
//   replicas in replica order, each edge 2 (n-1)/n of the gradients; edges inside a cluster
//   stay off the WAN.
// - No MoE all-to-all crosses clusters: with every expert on every replica, tokens never leave
//   their replica (TP stays inside a node).
#pragma once

#include <vector>

#include "common/plan/plan.h"

namespace spiderflow {

// Bytes from one cluster to another (cluster indices of the plan's cells); src != dst.
struct ClusterFlow {
    int src = -1;
    int dst = -1;
    double bytes = 0;
};

// One activation tensor crossing a stage boundary: one micro-batch, one replica, one direction.
double activation_bytes(const Plan& plan);
// The same for a job before it has a plan: micro-batch x sequence x hidden at training precision.
double activation_bytes(const JobSpec& job, int micro_batch);
// Activations forward plus their gradients backward across one pipeline boundary of one
// replica, summed over the replica's micro-batches in one iteration.
double pp_boundary_bytes(const Plan& plan);
// Gradient bytes of one stage (all of its layers, whole TP group), the DP all-reduce payload:
// one gradient per parameter of ModelArch::stage_params.
double stage_gradient_bytes(const Plan& plan, int stage);

// What each edge of a ring all-reduce of `bytes` among `members` carries: 2 (k-1)/k of them
// (0 for fewer than two members).
double ring_edge_bytes(double bytes, int members);

// The flows of one micro-batch across pipeline boundary s | s+1: s -> s+1 forward
// (activations), s+1 -> s backward (their gradients). One flow per crossing replica.
std::vector<ClusterFlow> pp_boundary_flows(const Plan& plan, int boundary, bool forward);
// The WAN flows of one stage's DP gradient all-reduce (see above); empty when the stage's
// replicas share one cluster.
std::vector<ClusterFlow> dp_allreduce_flows(const Plan& plan, int stage);

// DiLoCo (job.sync.mode == diloco): dp_allreduce_flows() is empty, as every inner step's
// all-reduce stays inside a site. Every H inner steps each stage all-reduces its pseudo-gradients
// (one per parameter, at job.sync.outer_precision) in a ring over the clusters holding the stage,
// as the hierarchical all-reduce above does; these are its flows (empty for a sync plan).
double stage_pseudo_gradient_bytes(const Plan& plan, int stage);
std::vector<ClusterFlow> outer_sync_flows(const Plan& plan, int stage);
// Bytes over WAN links, all flows of all cluster pairs added up: one outer step's
// (outer_sync_flows), and one iteration's (pipeline and DP flows; for DiLoCo one inner step's).
double outer_step_wan_bytes(const Plan& plan);
double iteration_wan_bytes(const Plan& plan);

// Traffic between two clusters (a < b) per iteration.
struct CrossTraffic {
    int a = -1;
    int b = -1;
    double pp_bytes = 0;          // pipeline boundaries that join a cell in a to a cell in b (both directions)
    double dp_bytes = 0;          // all-reduce ring edges between a and b (the busier direction)
    int pp_boundaries = 0;        // how many (replica, boundary) pairs cross
    int dp_stages = 0;            // how many stages' all-reduce uses this edge
};

// Every cluster pair that carries traffic, ordered by (a, b), summed from pp_boundary_flows()
// over micro-batches and directions and from dp_allreduce_flows(). A two-cluster ring sends
// the same bytes each way and counts once; a longer ring uses each pair in one direction.
std::vector<CrossTraffic> cross_cluster_traffic(const Plan& plan);

// Distinct clusters holding a cell of `stage`, ascending.
std::vector<int> clusters_of_stage(const Plan& plan, int stage);

// The replicas of `stage` grouped by cluster, clusters ascending, each group in replica order:
// the hierarchical all-reduce's rings. The first replica of each group is its member of the
// ring across clusters. Empty for a malformed plan or stage.
std::vector<std::vector<int>> dp_groups(const Plan& plan, int stage);

}  // namespace spiderflow
