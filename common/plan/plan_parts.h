// A plan cut along cluster lines: what each cluster must run of it. Cross-cluster co-allocation
// creates one Slurm job per part, and job_submit rewrites the home part; both start here.
#pragma once

#include <string>
#include <vector>

#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow {

struct PlanPart {
    int cluster = -1;                 // index into Topology::clusters
    std::string cluster_name;
    std::vector<int> nodes;           // node indices in the cluster, in order of their first rank
    std::vector<int> gpus_per_node;   // GPUs the plan uses on each of those nodes
    int tasks = 0;                    // ranks (one task per GPU)
    std::vector<int> ranks;           // global ranks of this part, ascending
    // First rank when the part's ranks are one contiguous range (a pipeline section: PP across
    // sites), else -1 (replicas spread over sites: DP across).
    int rank_offset = -1;

    // Same GPUs on every node: what one Slurm job can ask for.
    bool even() const;
};

// Parts in order of their first rank (the cluster holding rank 0 first). Throws InputError when
// the plan is ill formed on the topology (Plan::validate): a cell on a cluster, node or GPUs
// the topology lacks, or two cells on the same GPUs.
std::vector<PlanPart> split_by_cluster(const Plan& plan, const Topology& topology);

}  // namespace spiderflow
