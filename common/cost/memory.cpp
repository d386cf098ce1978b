#include "common/cost/memory.h"

#include <algorithm>

namespace spiderflow::cost {

double stage_params_per_gpu(const Plan& plan, int stage) {
    return plan.job.model.stage_params(plan.layers_per_stage[static_cast<size_t>(stage)], stage, plan.pp) / plan.tp;
}

double layer_activation_bytes(const JobSpec& job, int micro_batch, int tp) {
    const double s = job.seq_len, b = micro_batch, h = job.model.hidden, a = job.model.heads, t = tp;
    // Korthikanti et al. count 16-bit activations; fp32 training keeps twice the bytes.
    const double scale = job.precision == Precision::fp32 ? 2.0 : 1.0;
    if (job.recompute == Recompute::full) return scale * 2.0 * s * b * h;  // only each layer's input
    const double replicated = job.sequence_parallel ? 10.0 / t : 10.0;
    const double scores = job.flash_attention || job.recompute == Recompute::selective ? 0.0 : 5.0 * a * s / (h * t);
    return scale * s * b * h * (replicated + 24.0 / t + scores);
}

StageMemory stage_memory(const Plan& plan, int stage) {
    const JobSpec& job = plan.job;
    StageMemory mem;
    mem.params = stage_params_per_gpu(plan, stage);
    const double bpp = job.bytes_per_param();
    mem.weights = mem.params * bpp;
    mem.gradients = mem.params * bpp;
    // Adam: fp32 master copy + two moments (12 bytes) in mixed precision; fp32 needs no master.
    const double state = job.precision == Precision::fp32 ? 8.0 : 12.0;
    mem.optimizer = mem.params * state / (job.zero1 ? plan.dp : 1);
    // 1F1B: stage k (0-based) holds pp - k micro-batches, never more than there are.
    const int in_flight = std::min(plan.pp - stage, std::max(plan.num_micro_batches, 1));
    const double layers = plan.layers_per_stage[static_cast<size_t>(stage)];
    mem.activations = in_flight * layers * layer_activation_bytes(job, plan.micro_batch, plan.tp);
    // Interleaved 1F1B keeps more micro-batches in flight during its warm-up: Korthikanti et al.'s
    // factor 1 + (p - 1) / (p v) on the first stage, charged to every stage here.
    if (plan.virtual_stages > 1 && plan.pp > 1) {
        mem.activations *= 1.0 + static_cast<double>(plan.pp - 1) / (static_cast<double>(plan.pp) * plan.virtual_stages);
    }
    if (stage == plan.pp - 1) {
        // fp32 logits of the micro-batch being finished (Korthikanti: 4*s*b*V/t).
        mem.activations += 4.0 * job.seq_len * plan.micro_batch * static_cast<double>(job.model.vocab) / plan.tp;
    }
    return mem;
}

}  // namespace spiderflow::cost
