#include <algorithm>

#include "common/cost/comm.h"
#include "common/cost/cost_parts.h"
#include "common/plan/plan_traffic.h"
#include "common/cost/flops.h"

namespace spiderflow::cost {

MicroBatchCompute micro_batch_compute(const Plan& plan, int stage, double achieved_flops) {
    const JobSpec& job = plan.job;
    const double tokens = static_cast<double>(std::max(1, plan.micro_batch)) * job.seq_len;
    const double f_layer = layer_forward_flops_per_token(job.model, job.seq_len);
    const double layers = plan.layers_per_stage[static_cast<size_t>(stage)];
    const bool last = stage == plan.pp - 1;
    const double forward = tokens * (layers * f_layer + (last ? logits_forward_flops_per_token(job.model) : 0.0));
    const double recompute = job.recompute ? tokens * layers * f_layer : 0.0;
    const double rate = achieved_flops * plan.tp;
    return {forward / rate, recompute / rate};
}

CellTimes cell_times(const CostModel& model, const Plan& plan) {
    const JobSpec& job = plan.job;
    const int P = plan.pp, D = plan.dp, T = plan.tp;
    const double msg_bytes = activation_bytes(plan);
    // Megatron's TP all-reduces per layer and micro-batch: two forward, two backward, and two
    // more in the forward that recomputation repeats.
    const int tp_allreduces = job.recompute ? 6 : 4;
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
