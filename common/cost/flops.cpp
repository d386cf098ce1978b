#include "common/cost/flops.h"

namespace spiderflow::cost {

double attention_core_forward_flops_per_token(const ModelArch& m, int seq_len) {
    return 4.0 * static_cast<double>(seq_len) * m.hidden;
}

double layer_forward_flops_per_token(const ModelArch& m, int seq_len) {
    return 2.0 * m.matmul_params_per_layer(true) + attention_core_forward_flops_per_token(m, seq_len);
}

double logits_forward_flops_per_token(const ModelArch& m) { return 2.0 * static_cast<double>(m.hidden) * m.vocab; }

namespace {
double tokens(const JobSpec& job) { return static_cast<double>(job.global_batch) * job.seq_len; }
double forward_per_token(const JobSpec& job) {
    return job.model.layers * layer_forward_flops_per_token(job.model, job.seq_len) +
           logits_forward_flops_per_token(job.model);
}
}  // namespace

double model_flops_per_iteration(const JobSpec& job) { return 3.0 * forward_per_token(job) * tokens(job); }

double hardware_flops_per_iteration(const JobSpec& job) {
    double f = model_flops_per_iteration(job);
    if (job.recompute == Recompute::full)
        f += job.model.layers * layer_forward_flops_per_token(job.model, job.seq_len) * tokens(job);
    if (job.recompute == Recompute::selective)
        f += job.model.layers * attention_core_forward_flops_per_token(job.model, job.seq_len) * tokens(job);
    return f;
}

}  // namespace spiderflow::cost
