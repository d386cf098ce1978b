// Planning one job with a policy, with the choices a job may leave to the planner beside the
// layout: the distributed optimizer (ZeRO-1), activation recomputation and the interleaved
// pipeline schedule (virtual_stages.h). Shared by `spiderflow plan`,
// job_submit, the federation simulator and the planner benchmark.
#pragma once

#include "common/planner/planner.h"

namespace spiderflow {

// Plans `request` with `planner`. A job that leaves "zero1" open (JobSpec::zero1_stated) is
// planned with the optimizer states sharded across data parallelism, which costs no traffic, and
// its plan keeps that whenever it has more than one replica. Sequence parallelism left open
// (JobSpec::sequence_parallel_stated) is planned on, as it saves memory for no traffic or
// compute, and kept wherever the plan has tp > 1.
// A job that states "recompute" (JobSpec::recompute_stated), or already has one, is planned as
// given. Otherwise it is planned without recomputation, then with selective, then with full, each
// on the shapes memory limited in the one before (recomputation trades compute for memory, so no
// other shape can gain), and the best kept: a layout that fits only with recomputation may beat
// those that fit without, as Megatron-LM users know. The plan's note says what was chosen and
// what the best plan without it would cost.
// The attempts together stay within request.time_limit_s (each gets an equal share of what the
// ones before left); with time_limit_s = 0 each gets the policy's default. Throws InfeasibleError
// when no attempt finds a layout. The layout found then runs interleaved when that predicts
// better (choose_virtual_stages), its note saying so.
PlanResult plan_job(const PlannerPolicy& planner, const PlanRequest& request, const CostModel& cost);

}  // namespace spiderflow
