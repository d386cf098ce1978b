// Planning one job with a policy, with the choice a job spec may leave to the planner:
// activation recomputation. Shared by `spiderflow plan` and job_submit.
#pragma once

#include "libspiderflow/planner/planner.h"

namespace spiderflow {

// Plans `request` with `planner`. A job that states "recompute" (JobSpec::recompute_stated), or
// already has it on, is planned as given. Otherwise it is planned without recompute first and,
// when no layout fits (InfeasibleError), again with recompute on, as Megatron-LM users do when
// memory runs out; the result then has plan.job.recompute set and a note that says so.
// With the GPU count left open (at most N, or the best count) both are planned and the better
// kept, so that allowing more GPUs never gives a worse plan than fewer would.
// Both attempts together stay within request.time_limit_s (the second gets what the first
// left); with time_limit_s = 0 each attempt gets the policy's default. Throws InfeasibleError
// when neither attempt finds a layout.
PlanResult plan_job(const PlannerPolicy& planner, const PlanRequest& request, const CostModel& cost);

}  // namespace spiderflow
