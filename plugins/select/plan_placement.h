// The nodes a planned job should start on, from slurmctld's own node and switch records: the
// cluster as a Topology (nodes, GPUs, the topology/tree switches), what is free on each node
// now, and node_pick's choice among the nodes Slurm offers the job.
#pragma once

#include <string>

#include "plugins/slurm_internal.h"

namespace spiderflow::plugin {

struct PlacementChoice {
    bitstr_t* nodes = nullptr;   // owned by the caller (FREE_NULL_BITMAP); null: no narrowing
    int leaf_switches = 0;
    int split_stages = 0;
    std::string why;             // when nodes is null and the job has a plan: the reason
};

// Runs under the job and node write locks select_nodes() holds. Reads the job's plan from its
// AdminComment (job_submit's summary); a job without one gets an empty choice and no reason.
// Throws only std::exception (the caller falls back to cons_tres alone).
PlacementChoice planned_nodes(job_record_t* job, bitstr_t* candidates, uint32_t min_nodes);

}  // namespace spiderflow::plugin
