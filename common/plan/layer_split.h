// Layer splits Megatron-LM can launch: the rule the launch writer enforces and the one the
// sequential layout and the baselines split by, so that what is planned is what runs.
#pragma once

#include <string>
#include <vector>

namespace spiderflow {

// Megatron-LM (--decoder-first/last-pipeline-num-layers; its older releases have no
// --pipeline-model-parallel-layout) runs only splits with free first and last stage counts and
// equal middle stages, every stage at least one layer. Empty when `layers_per_stage` is one;
// else why not. The planners produce only such splits.
std::string megatron_split_problem(const std::vector<int>& layers_per_stage);

// The most even split of `layers` over `pp` stages that Megatron-LM can express, the extra
// layers on the first stage rather than the last (which also computes the logits); e.g.
// 32 layers on 7 stages: 4,5,5,5,5,5,3. Empty when pp < 1 or layers < pp.
std::vector<int> megatron_even_split(int layers, int pp);

}  // namespace spiderflow
