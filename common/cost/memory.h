// Memory of one GPU of a pipeline stage: weights, gradients, Adam states and the activations of
// the micro-batches 1F1B keeps in flight (Korthikanti et al. 2022, "Reducing Activation
// Recomputation in Large Transformer Models", section 4; sections 4.2.2 and 5 for sequence parallelism and selective recomputation).
#pragma once

#include "common/plan/plan.h"

namespace spiderflow::cost {

struct StageMemory {
    double weights = 0;
    double gradients = 0;
    double optimizer = 0;
    double activations = 0;
    double params = 0;          // parameters held by one GPU of the stage
    double total() const { return weights + gradients + optimizer + activations; }
};

// Parameters held by one GPU of `stage`: ModelArch::stage_params split over the cell's tp GPUs.
double stage_params_per_gpu(const Plan& plan, int stage);
// Activation bytes of one layer for one micro-batch on one GPU, by the job's memory choices: full
// recomputation keeps only the layer's input; sequence parallelism splits the 10*s*b*h part
// across tp as well; selective recomputation and FlashAttention keep no s x s scores (5*a*s/h).
double layer_activation_bytes(const JobSpec& job, int micro_batch, int tp);
StageMemory stage_memory(const Plan& plan, int stage);

}  // namespace spiderflow::cost
