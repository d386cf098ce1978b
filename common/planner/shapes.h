// The layout space every policy explores: which clusters a request may use, how many GPUs to
// try, and the (tp, pp, dp, micro-batch) shapes that can fit. Shared by SpinSearch and the
// baselines so that they differ only in how they search, never in what they may choose.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "common/cost/cost_model.h"
#include "common/planner/planner.h"
#include "common/topology/topology.h"

namespace spiderflow {

struct Shape {
    int tp = 1;
    int pp = 1;
    int dp = 1;
    int micro_batch = 1;

    int gpus() const { return tp * pp * dp; }
    std::array<int, 4> key() const { return {tp, pp, dp, micro_batch}; }
    bool operator==(const Shape&) const = default;
};

std::string to_string(const Shape& s);  // "tp4 pp8 dp16 mb2"

// Cluster indices the request may use (allowed minus forbidden), ascending. Unknown cluster
// names are an InputError (source "plan request", field allowed_clusters/forbidden_clusters).
std::vector<int> eligible_clusters(const PlanRequest& request, const Topology& topology);

// Largest NVLink domain (GPUs) among the nodes of the given clusters; TP may not exceed it.
int max_nvlink_domain(const Topology& topology, const std::vector<int>& clusters);
// GPUs a shape with this tp can use in the given clusters (tp_group_first_gpus groups * tp).
int usable_gpus(const Topology& topology, const std::vector<int>& clusters, int tp);

// Lower bound on the bytes per GPU of the fullest stage (weights, gradients, optimizer states;
// activations ignored), a prefilter only: the cost model has the final word on memory.
double memory_lower_bound(const JobSpec& job, const Shape& shape);

// Every shape for exactly `gpus` GPUs that satisfies: tp divides heads and kv heads and fits an
// NVLink domain, pp <= layers, global_batch divisible by dp * micro_batch, the request's fixed
// degrees, and memory_lower_bound() within the largest GPU type in the clusters. Ordered by
// (tp, pp, dp, micro_batch) so every policy sees the same order. Only the request's only_shapes,
// when it has them. memory_pruned (optional) gets the shapes the memory bound left out.
std::vector<Shape> enumerate_shapes(const PlanRequest& request, const Topology& topology, const CostModel& cost,
                                    int gpus, const std::vector<int>& clusters,
                                    std::vector<Shape>* memory_pruned = nullptr);
std::vector<Shape> enumerate_shapes(const PlanRequest& request, const Topology& topology, const CostModel& cost,
                                    int gpus);

// GPU counts to try, most GPUs first: exact -> {gpus}; at_most -> counts up to min(gpus,
// available); best -> counts up to available. Beyond the limit itself only counts with many
// divisors (2^a * 3^b) are tried, which is where useful shapes live. Throws InfeasibleError when
// an exact request exceeds what the clusters have ("asked for 4096 GPUs; the allowed clusters
// have 1024").
std::vector<int> candidate_gpu_counts(const PlanRequest& request, int available_gpus);

// The single count for exact requests and the most GPUs otherwise (what a caller that tries
// one count should use).
int choose_gpu_count(const PlanRequest& request, int available_gpus);

// Throws InfeasibleError explaining why no shape exists for any of `counts` (memory, batch
// divisibility, fixed degrees), with what would fit. Call after enumeration came back empty.
[[noreturn]] void explain_no_shape(const PlanRequest& request, const Topology& topology, const CostModel& cost,
                                   const std::vector<int>& clusters, const std::vector<int>& counts);

// True when a is strictly better than b for the objective (infeasible predictions never win).
bool better_prediction(const Prediction& a, int gpus_a, const Prediction& b, int gpus_b, Objective objective);

}  // namespace spiderflow
