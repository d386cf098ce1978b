#include "common/planner/virtual_stages.h"

#include <cstdio>
#include <vector>

#include "common/plan/plan_traffic.h"
#include "common/planner/shapes.h"

namespace spiderflow {

std::string choose_virtual_stages(Plan& plan, Objective objective, const CostModel& cost) {
    // A DiLoCo plan launches torchtitan, whose pipeline schedule the launch does not set.
    if (plan.pp < 2 || !plan.prediction.feasible || plan.job.sync.diloco()) return "";
    // Only pipelines that stay inside a site: across a WAN link the V-fold messages (and the hop
    // from the last stage back to the first, which the cost model does not price) rarely pay, and
    // the coflow model schedules plain 1F1B there.
    for (int b = 0; b + 1 < plan.pp; ++b) {
        if (!pp_boundary_flows(plan, b, true).empty()) return "";
    }
    std::vector<std::vector<int>> splits = {plan.layers_per_stage};
    if (plan.job.model.layers % plan.pp == 0) {
        const std::vector<int> even(static_cast<size_t>(plan.pp), plan.job.model.layers / plan.pp);
        if (even != plan.layers_per_stage) splits.push_back(even);
    }
    const Plan plain = plan;
    for (const std::vector<int>& split : splits) {
        Plan candidate = plain;
        candidate.layers_per_stage = split;
        for (int v = 2; v <= split.front(); ++v) {
            candidate.virtual_stages = v;
            if (!virtual_stages_problem(candidate, v).empty()) continue;
            candidate.prediction = cost.estimate(candidate);
            if (better_prediction(candidate.prediction, candidate.world_size(), plan.prediction, plan.world_size(),
                                  objective)) {
                plan = candidate;
            }
        }
    }
    if (plan.virtual_stages == 1) return "";
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "interleaved 1F1B with %d model chunks per GPU: %.2f s per iteration against %.2f s with plain 1F1B",
                  plan.virtual_stages, plan.prediction.iteration_s, plain.prediction.iteration_s);
    return buf;
}

}  // namespace spiderflow
