#include <algorithm>

#include "common/cost/comm.h"
#include "common/cost/cost_parts.h"
#include "common/plan/plan_traffic.h"
#include "common/cost/flops.h"
#include "common/cost/gemm_efficiency.h"

namespace spiderflow::cost {

MicroBatchCompute micro_batch_compute(const Plan& plan, int stage, double achieved_flops) {
    const JobSpec& job = plan.job;
    const ModelArch& m = job.model;
    const int b = std::max(1, plan.micro_batch);
    const double tokens = static_cast<double>(b) * job.seq_len;
    const double layers = plan.layers_per_stage[static_cast<size_t>(stage)];
    const double rate = achieved_flops * plan.tp;
    const double layer_s = tokens * layer_forward_flops_per_token(m, job.seq_len) /
                           (rate * layer_gemm_factor(m, job.seq_len, b, plan.tp));
    const double logits_s = stage == plan.pp - 1 ? tokens * logits_forward_flops_per_token(m) /
                                                       (rate * logits_gemm_factor(m, job.seq_len, b, plan.tp))
                                                 : 0.0;
    double recompute_s = 0;
    if (job.recomputes()) {
        recompute_s = job.recompute == Recompute::full
                          ? layers * layer_s
                          : layers * tokens * attention_core_forward_flops_per_token(m, job.seq_len) /
                                (rate * attention_core_gemm_factor(m, job.seq_len));
    }
    return {layers * layer_s + logits_s, recompute_s};
}

CellTimes cell_times(const CostModel& model, const Plan& plan) {
    const JobSpec& job = plan.job;
    const int P = plan.pp, D = plan.dp, T = plan.tp;
    const double msg_bytes = activation_bytes(plan);
    // Megatron's TP all-reduces per layer and micro-batch: two forward, two backward, and two
    // more in the forward that full recomputation repeats (the attention core that selective
    // recomputation repeats sits between them and communicates nothing).
    const int tp_allreduces = job.recompute == Recompute::full ? 6 : 4;
    CellTimes out;
    out.compute_s.resize(plan.cells.size());
    out.backward_s.resize(plan.cells.size());
    out.tp_s.resize(plan.cells.size());
    for (int s = 0; s < P; ++s) {
        const double layers = plan.layers_per_stage[static_cast<size_t>(s)];
        for (int r = 0; r < D; ++r) {
            const size_t i = static_cast<size_t>(s) * D + r;
            const CostModel::NodeFacts& f = model.facts(plan.cells[i]);
            out.peak_flops += f.gpu->peak_flops * T;
            const MicroBatchCompute c = micro_batch_compute(plan, s, f.gpu->peak_flops * f.gpu->efficiency);
            out.compute_s[i] = c.total_s();
            out.backward_s[i] = c.backward_s();
            if (T > 1) {
                const bool nvlink = f.gpu->nvlink_Bps > 0 && f.nvlink_domain >= T;
                const double bw = nvlink ? f.gpu->nvlink_Bps : f.gpu->pcie_Bps;
                out.tp_s[i] = layers * tp_allreduces * ring_allreduce_s(msg_bytes, T, bw, 0.0) *
                              (1.0 - model.options().tp_overlap);
            }
        }
    }
    return out;
}

}  // namespace spiderflow::cost
