// State shared by the SPANK plugin's per-context files: the options the user gave and the site
// config. One instance per process. The light part (this plugin: sbatch, salloc, srun) and the
// step part (spiderflow_stepd.so, loaded only by slurmstepd and slurmd) both see it.
#pragma once

#include <string>
#include <vector>

extern "C" {
#include <slurm/spank.h>
}

#include "services/slurmjob/job_options.h"
#include "services/slurmjob/spiderflow_conf.h"

namespace spiderflow::plugin::spank {

// The plugins are thin adapters over the Slurm-free job code.
using namespace spiderflow::slurmjob;

struct PluginState {
    JobOptions options;
    std::vector<std::string> options_given;   // names set on the command line
    SpiderflowConf config;                        // enabled = false while config_error is set
    std::string config_error;                 // why SpiderFlow is off on this host; empty when fine
    std::string plugin_arg_remote;            // plugstack.conf stepd=PATH (tests, odd installs)
};

PluginState& plugin_state();

// Reads plugstack.conf arguments (conf=PATH, stepd=PATH) and the config. Never fails: a bad
// argument or config turns SpiderFlow off on this host, logs why, and keeps config_error for the
// messages SpiderFlow jobs show. Plain jobs and steps are never stopped by our config.
void load_plugin_config(int argc, char** argv);

// Registers the option table (every context must, for the options to be recognised).
int register_options(spank_t sp);

// sbatch/salloc/srun: SPIDERFLOW_* env -> job options; --llm-plan's file read as the user.
int client_post_opt(spank_t sp);

// slurmstepd: a step of a SpiderFlow job (options given, or planned by job_submit). Other steps
// never load spiderflow_stepd.so.
bool is_spiderflow_step(spank_t sp);

// Environment value from the job (spank_getenv); empty when unset.
std::string job_getenv(spank_t sp, const char* name);
// A value job_submit set: a batch step sees it as SLURM_SPANK_<name>; steps started by `spiderflow
// launch`, salloc/srun jobs and cross-site parts also carry the plain name.
std::string planned_getenv(spank_t sp, const std::string& name);

}  // namespace spiderflow::plugin::spank
