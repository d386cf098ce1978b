// State shared by the SPANK plugin's per-context files: the options the user gave, the site
// config and (in slurmstepd) the topology. One instance per process.
#pragma once

#include <memory>
#include <string>

extern "C" {
#include <slurm/spank.h>
}

#include "common/topology/topology.h"
#include "plugins/common/job_options.h"
#include "plugins/common/site_config.h"

namespace spiderflow::plugin::spank {

struct PluginState {
    JobOptions options;
    std::vector<std::string> options_given;   // names set on the command line
    SiteConfig config;
    std::shared_ptr<const Topology> topology; // remote context only; null when unusable
};

PluginState& plugin_state();

// Reads plugstack.conf arguments (only "conf=PATH" is known) and the config. Returns false and
// logs when an argument or the config is bad: the plugin then refuses to load.
bool load_plugin_config(int argc, char** argv);

// Registers the option table (every context must, for the options to be recognised).
int register_options(spank_t sp);

// Per-context work.
int allocator_post_opt(spank_t sp);     // sbatch/salloc: SPIDERFLOW_* env -> job options
int remote_init(spank_t sp);            // slurmstepd: load the topology once per step
int remote_task_init(spank_t sp);       // in each task: ranks, degrees, NCCL env
int job_script_prolog(spank_t sp);      // slurmd prolog, root: the job's WAN traffic class on
int job_script_epilog(spank_t sp);      // slurmd epilog, root: ... and off again

// Environment value from the job (spank_getenv); empty when unset.
std::string job_getenv(spank_t sp, const char* name);

}  // namespace spiderflow::plugin::spank
