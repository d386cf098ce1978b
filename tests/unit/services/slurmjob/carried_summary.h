// A job's AdminComment as job_submit writes it, carrying the plan (plan_transport.h): what the
// coflow levels are computed from, for their tests and sched/spiderflow's.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_transport.h"
#include "common/planner/plan_job.h"
#include "services/slurmjob/plan_summary.h"
#include "tests/unit/common/planner/fixtures.h"

namespace spiderflow::slurmjob::test {

inline std::string summary_of(const Plan& plan, const Topology& t) {
    return format_plan_summary(plan_summary_of(plan, plan.world_size() / 8, 8, encode_plan_text(plan_to_json(plan, t, -1))));
}

// The same for the plan spinsearch makes of MODEL on GPUS GPUs.
inline std::string summary_for(const Topology& t, const std::string& model, int batch, int gpus) {
    const CostModel cost(t, Catalog::builtin());
    const PlanResult p = plan_job(*make_planner("spinsearch"), sftest::request(model, batch, gpus), cost);
    EXPECT_TRUE(p.plan.prediction.feasible) << model;
    return summary_of(p.plan, t);
}

}  // namespace spiderflow::slurmjob::test
