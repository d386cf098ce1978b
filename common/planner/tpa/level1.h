// TPA level 1, between clusters: how many layers each stage gets, in proportion to the speed of
// the slowest GPU serving it, under per-stage memory caps; and the memory approximation TPA
// uses to set those caps (the cost model still judges every finished plan).
#pragma once

#include <string>
#include <vector>

#include "common/cost/cost_model.h"
#include "common/model/job_spec.h"
#include "common/planner/shapes.h"

namespace spiderflow::tpa {

struct MemoryModel {
    double per_layer_static = 0;      // weights, gradients, optimizer states per layer per GPU
    double per_layer_activation = 0;  // activations per layer per in-flight micro-batch per GPU
    double embedding = 0;             // one vocabulary table (per GPU), on the first and last stage
    double logits = 0;                // last stage: fp32 logits of one micro-batch
    bool tied_single_stage = false;   // pp == 1 with tied embeddings: one table, not two
    int pp = 1;
    int micro_batches = 1;

    double stage_bytes(int stage, int layers) const;
    // Most layers that fit `memory` bytes in this stage (0 when not even one fits).
    int max_layers(int stage, double memory) const;
};

// Mirrors common/cost/memory.h per layer so TPA's caps agree with the cost model's verdicts.
MemoryModel memory_model(const JobSpec& job, const Shape& shape);

// Layers per stage minimising max((layers[s] + extra[s]) / speed[s]) with 1 <= layers[s] <= cap[s]
// and the sum equal to `total`; `extra` (empty: none) is work a stage does beside its layers, in
// layers (end_stage_work). Greedy water-filling, exact for this separable min-max. Empty when the
// caps cannot hold `total` or there are more stages than layers.
std::vector<int> split_layers(int total, const std::vector<double>& speed, const std::vector<int>& cap,
                              const std::vector<double>& extra = {});

// split_layers restricted to splits Megatron-LM can launch (megatron_split_problem in
// common/plan/layer_split.h): free first and last stage, one layer count for every middle
// stage. Exact: tries each middle count, the ends split by water-filling.
std::vector<int> megatron_split(int total, const std::vector<double>& speed, const std::vector<int>& cap,
                                const std::vector<double>& extra = {});

// The work the end stages do beside their layers, in layers of the model, per stage of `pp`: the
// last computes the logits (forward and backward over the vocabulary: hidden x vocab per token
// against a layer's active weights; about 2.4 layers for llama3-8b). The embedding lookup is
// negligible. What lets a split unload the last stage before polish has to.
std::vector<double> end_stage_work(const ModelArch& model, int pp);

// Why megatron_split found nothing, for the user: the caps hold no split at all, or only
// splits with unequal middle stages (1F1B keeps more activations on early stages).
std::string split_failure(int total, const std::vector<double>& speed, const std::vector<int>& cap);

// Neighbours of a Megatron-expressible split for local search, each expressible again: one
// layer moved between the first and last stage, or the middle count one up or down with the
// ends taking up the difference about in their current ratio.
std::vector<std::vector<int>> split_moves(const std::vector<int>& layers);

}  // namespace spiderflow::tpa
