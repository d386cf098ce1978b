// The one plan schema, plain data: where every (pipeline stage, data-parallel replica) cell
// runs, the parallel degrees, the layer split, and the predicted cost. Writers (JSON, launch
// script, text, SVG) live beside it; the cost model and the planners use it, it uses neither.
#pragma once

#include <string>
#include <vector>

#include "common/model/job_spec.h"

namespace spiderflow {

class Topology;

// One (stage, replica) cell: tp consecutive GPUs of one node (TP never leaves a node).
struct StageCell {
    int cluster = -1;            // index into Topology::clusters
    int node = -1;               // index into Cluster::nodes
    int first_gpu = 0;           // GPUs first_gpu .. first_gpu + tp - 1 of that node
};

// One rank of the expanded plan, in Megatron-LM order (tp fastest, then dp, then pp).
struct RankPlacement {
    int rank = 0;
    int cluster = -1;
    int node = -1;
    int gpu = 0;
    int tp = 0;                  // coordinates
    int pp = 0;
    int dp = 0;
    int first_layer = 0;         // layers [first_layer, first_layer + num_layers)
    int num_layers = 0;
};

// Predicted cost of one iteration, with its breakdown (seconds) and memory (bytes).
struct Prediction {
    bool feasible = true;
    std::string infeasible_reason;   // set when !feasible: which limit, by how much
    double iteration_s = 0;
    double compute_s = 0;            // slowest stage, all micro-batches, forward+backward
    double tp_comm_s = 0;
    double pp_comm_s = 0;
    double dp_comm_s = 0;            // exposed (not overlapped) part
    double bubble_s = 0;
    double optimizer_s = 0;
    double tokens_per_s = 0;
    double mfu = 0;                  // model FLOPs utilisation against the GPUs' peak
    double max_memory_bytes = 0;     // the fullest GPU
    std::vector<double> stage_memory_bytes;  // per stage, per GPU
    double scaling_efficiency = 0;   // vs. the same GPUs in one site; 0 when not computed
    // DiLoCo plans only (job.sync.mode == diloco; all 0 for synchronous ones). iteration_s is
    // then one inner step with the outer step's exposed time spread over its H inner steps.
    double outer_allreduce_s = 0;    // the pseudo-gradient all-reduce of one outer step
    double outer_exposed_s = 0;      // of which the inner steps wait for (all of it unless streaming)
    double outer_wan_bytes = 0;      // bytes over WAN links per outer step, all cluster pairs together
    double compute_utilisation = 0;  // H inner steps / (H inner steps + exposed outer step)
};

struct Plan {
    // 2: the job's recompute is a word (none, selective, full) and sequence_parallel and
    // flash_attention are written; version 1 plans still read.
    static constexpr int kSchemaVersion = 2;

    JobSpec job;
    int tp = 1;
    int pp = 1;
    int dp = 1;
    int micro_batch = 1;
    int num_micro_batches = 1;       // per replica per iteration
    // Interleaved 1F1B: model chunks per GPU (Megatron-LM's --num-virtual-stages-per-pipeline-rank);
    // 1 is plain 1F1B. More chunks shrink the pipeline bubble V-fold and send V times as many
    // activations between stages (virtual_stages_problem says when Megatron can run it).
    int virtual_stages = 1;
    std::vector<int> layers_per_stage;  // size pp; sums to job.model.layers
    std::vector<StageCell> cells;    // size pp * dp; index stage * dp + replica
    bool hierarchical_dp = true;     // reduce-scatter inside clusters, all-reduce across
    std::string policy;
    double planning_ms = 0;
    Prediction prediction;

    int world_size() const { return tp * pp * dp; }
    StageCell& cell(int stage, int replica) { return cells[static_cast<size_t>(stage) * dp + replica]; }
    const StageCell& cell(int stage, int replica) const { return cells[static_cast<size_t>(stage) * dp + replica]; }
    int first_layer_of_stage(int stage) const;
    // Every rank's place, in Megatron-LM's rank order (coords_of_rank below).
    std::vector<RankPlacement> ranks() const;

    // Throws InputError(source, 0, problem.field, problem.what) unless plan_problem() is empty.
    void validate(const Topology* topology = nullptr, const std::string& source = "plan") const;
};

// Megatron-LM's rank order, the one every rank table, RANK variable and host list follows:
// tensor fastest, then data, then pipeline. Plan::ranks() enumerates it; this inverts it.
struct ParallelCoords {
    int tp = 0, pp = 0, dp = 0;
};
ParallelCoords coords_of_rank(int rank, int tp, int pp, int dp);

// Why Megatron-LM cannot interleave `plan` with V chunks per GPU (empty: it can): V >= 1; with
// V > 1 the pipeline has 2 or more stages of equal layer counts that V divides, and the
// micro-batches per replica are a multiple of pp (Megatron's interleaved schedule). Like the
// layer split's (layer_split.h), a launch question, not a plan's well-formedness: the cost model
// prices any V; the planner only picks, and the launch writer only writes, what Megatron runs.
std::string virtual_stages_problem(const Plan& plan, int virtual_stages);

// The first thing that makes a plan ill formed. `field` is the path the plan file uses for it
// ("degrees.tp", "layers_per_stage[2]", "cells[5].first_gpu"; a cell's index is
// stage * dp + replica), so a reader of that file can point at it.
struct PlanProblem {
    std::string field;
    std::string what;   // empty: well formed
    bool empty() const { return what.empty(); }
    std::string message() const { return field.empty() ? what : field + ": " + what; }
};

// The one definition of a well-formed plan: degrees, micro-batch, micro-batch count and virtual
// stages >= 1; pp * dp cells; pp layer counts, each >= 1, summing to the model's layers; every cell placed
// (indices >= 0). With a topology also: every cluster and node exists, each cell's tp GPUs lie
// on its node, and no two cells share a GPU. Catalog lookups and the job's own fields are the
// readers' and the cost model's business.
PlanProblem plan_problem(const Plan& plan, const Topology* topology = nullptr);

}  // namespace spiderflow
