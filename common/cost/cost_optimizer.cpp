#include <algorithm>

#include "common/cost/cost_parts.h"
#include "common/cost/memory.h"

namespace spiderflow::cost {

namespace {
constexpr double kDefaultHbm_Bps = 1e12;  // when a site's GPU entry gives no HBM figure
}  // namespace

double optimizer_s(const CostModel& model, const Plan& plan) {
    const JobSpec& job = plan.job;
    const int P = plan.pp, D = plan.dp;
    // Adam is memory-bound: its time is the bytes it streams through HBM.
    const double state_bytes = job.precision == Precision::fp32 ? 8.0 : 12.0;
    const double bpe = job.bytes_per_param();
    double slowest = 0;
    for (int s = 0; s < P; ++s) {
        const double params = stage_params_per_gpu(plan, s);
        const double owned = params / (job.zero1 ? D : 1);
        // read+write of master weights and both moments, read of gradients, write of weights
        const double bytes = owned * (2.0 * state_bytes + 2.0 * bpe);
        for (int r = 0; r < D; ++r) {
            const GpuType* g = model.facts(plan.cell(s, r)).gpu;
            slowest = std::max(slowest, bytes / (g->hbm_Bps > 0 ? g->hbm_Bps : kDefaultHbm_Bps));
        }
    }
    return slowest;
}

}  // namespace spiderflow::cost
