// The coflow scheduler's word inside slurmctld: each cycle sched/spiderflow's thread orders the
// SpiderFlow jobs whose plans cross clusters by their WAN coflows (services/slurmjob/
// coflow_levels.h, smallest bottleneck first) and gives every such job that has not started its
// level as SPIDERFLOW_TRAFFIC_LEVEL in its spank env, which its prolog (the tc class) and its
// steps (NCCL_IB_TC/SL) read at start. Running jobs keep the class they started with. Slurm's job
// priority is left to the site's priority plugin: a second hand on it would fight the first.
//
// Locks: the job READ lock for one pass over the job list (copying ids and AdminComments), none
// while plans are decoded and ordered, then the job WRITE lock once to set the changed levels.
// Each carried plan is decoded once (BottleneckMemo), not every cycle.
#pragma once

#include <map>
#include <string>

#include "services/slurmjob/coflow_levels.h"
#include "services/slurmjob/topology_cache.h"

namespace spiderflow::plugin {

class CoflowPriorities {
public:
    // One pass. Never throws; problems are logged once per change.
    void cycle();

private:
    slurmjob::TopologyCache topology_;
    slurmjob::BottleneckMemo memo_;
    std::string last_problem_;
};

}  // namespace spiderflow::plugin
