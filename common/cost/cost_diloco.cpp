// DiLoCo's outer step (doc/cost-model.md, "Low-communication training across sites"): what
// every H inner steps costs, and how much of it the inner steps wait for.
#include <algorithm>
#include <string>

#include "common/cost/cost_parts.h"
#include "common/plan/plan_traffic.h"

namespace spiderflow::cost {

std::string diloco_problem(const Topology& topology, const Plan& plan) {
    for (int r = 0; r < plan.dp; ++r) {
        const int home = plan.cell(0, r).cluster;
        for (int s = 1; s < plan.pp; ++s) {
            const int c = plan.cell(s, r).cluster;
            if (c == home) continue;
            return "DiLoCo trains whole replicas inside one site, but replica " + std::to_string(r) + " has stage 0 on " +
                   topology.clusters[static_cast<size_t>(home)].name + " and stage " + std::to_string(s) + " on " +
                   topology.clusters[static_cast<size_t>(c)].name;
        }
    }
    return {};
}

OuterStep outer_step(const CostModel& model, const Plan& plan, double inner_step_s, bool single_site) {
    OuterStep out;
    const DataParallelTimes times = outer_allreduce_times(model, plan, single_site);
    if (!times.problem.empty()) {
        out.problem = times.problem;
        return out;
    }
    for (double t : times.allreduce_s) out.allreduce_s = std::max(out.allreduce_s, t);
    const SyncSpec& sync = plan.job.sync;
    // Blocking: the next inner step starts with the averaged weights. Streaming: it starts at once
    // and the all-reduce runs behind the next H inner steps, as far as they last.
    const double hidden = sync.streaming ? sync.inner_steps * inner_step_s : 0.0;
    out.exposed_s = std::max(0.0, out.allreduce_s - hidden);
    out.wan_bytes = single_site ? 0.0 : outer_step_wan_bytes(plan);
    return out;
}

}  // namespace spiderflow::cost
