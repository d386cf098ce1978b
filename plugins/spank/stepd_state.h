// spiderflow_stepd.so's own state, beside the plugin's PluginState: the topology, and the
// step's rank layout worked out once per step and node in slurmstepd before the tasks fork.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/topology/topology.h"
#include "services/slurmjob/rank_order.h"
#include "plugins/spank/spank_state.h"

namespace spiderflow::plugin::spank {

// The plugins are thin adapters over the Slurm-free job code.
using namespace spiderflow::slurmjob;

struct StepLayout {
    bool planned = false;            // the step runs the plan's world: ranks are set
    bool launchers = false;          // ... through one launcher per node (torchrun): node ranks only
    std::vector<RankSlot> slots;     // per rank
    std::string master_addr;         // rank 0's node, as Slurm reaches it (NodeAddr)
    // A part of a cross-site job: its ranks are rank_base + the local ones, in a world of
    // `world`, meeting at the master and port the broker gave every part.
    int rank_base = 0;
    int world = 0;                   // 0 = the step is the whole world
    int master_port = 0;
    std::string note;                // why the step has no ranks, or what differs from the plan
};

struct StepdState {
    std::shared_ptr<const Topology> topology;  // null when unusable
    StepLayout layout;
    // Set when the job must not run at all (a cross-site home part someone released before the
    // broker placed it): every task prints it on its stderr and fails.
    std::string refusal;
};

StepdState& stepd_state();

int remote_init(spank_t sp);            // slurmstepd: load the topology once per step
int remote_plan_from_slurmctld(spank_t sp);  // slurmstepd: salloc/srun jobs fetch their plan summary
int remote_step_layout(spank_t sp);     // slurmstepd, as root before the tasks fork: the step's layout
int remote_task_init(spank_t sp);       // in each task: ranks, degrees, NCCL env
int remote_task_exit(spank_t sp);       // slurmstepd, root, a task ended: a failed part waits for the verdict
int job_script_prolog(spank_t sp);      // slurmd prolog, root: the job's WAN traffic class on
int job_script_epilog(spank_t sp);      // slurmd epilog, root: ... and off again

}  // namespace spiderflow::plugin::spank
