// Planning one job with a policy, with the choices a job may leave to the planner beside the
// layout: the distributed optimizer (ZeRO-1), activation recomputation and the interleaved
// pipeline schedule (virtual_stages.h). Shared by `spiderflow plan`,
// job_submit, the federation simulator and the planner benchmark.
#pragma once

#include "common/planner/planner.h"

namespace spiderflow {

// Plans `request` with `planner`. A job that leaves "zero1" open (JobSpec::zero1_stated) is
// planned with the optimizer states sharded across data parallelism, which costs no traffic, and
// its plan keeps that whenever it has more than one replica.
// A job that states "recompute" (JobSpec::recompute_stated), or
// already has it on, is planned as given. Otherwise it is planned without recompute and again
// with it, and the better kept (a layout that fits only with recomputation may beat those that
// fit without, as Megatron-LM users know); the result then has plan.job.recompute set and a note
// that says why.
// Both attempts together stay within request.time_limit_s (the first gets half, the second what
// the first left); with time_limit_s = 0 each attempt gets the policy's default. Throws InfeasibleError
// when neither attempt finds a layout. The layout found then runs interleaved when that predicts
// better (choose_virtual_stages), its note saying so.
PlanResult plan_job(const PlannerPolicy& planner, const PlanRequest& request, const CostModel& cost);

}  // namespace spiderflow
