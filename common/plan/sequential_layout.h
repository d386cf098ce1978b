// The plain layout: cells filled cluster by cluster, node by node in Cluster::node_order,
// stage-major (all replicas of stage 0 first, then stage 1, ...). What `spiderflow estimate`
// uses without --plan and what the topology-oblivious first-fit baseline produces.
#pragma once

#include "common/model/job_spec.h"
#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow {

// micro_batch <= 0 takes job.micro_batch (or 1 when that is 0 too). Layers are split by
// megatron_even_split, so the plan launches. Throws InputError (source "job spec") for
// degrees that do not fit the job (pp > layers, global_batch not divisible by micro_batch*dp)
// and InfeasibleError when the topology lacks tp-wide node slots for pp*dp cells.
Plan make_sequential_plan(const Topology& topology, const JobSpec& job, int tp, int pp, int dp, int micro_batch);

}  // namespace spiderflow
