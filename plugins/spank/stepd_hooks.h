// The seam between the SPANK plugin (light: loaded by every sbatch, salloc and srun) and
// spiderflow_stepd.so (the planner's library, topology readers, NCCL settings: loaded only by
// slurmstepd and slurmd, when a hook needs it). The plugin dlopen()s the .so beside itself and
// calls one C function; both are built from one tree, and the ABI number catches a mismatch.
#pragma once

extern "C" {
#include <slurm/spank.h>
}

namespace spiderflow::plugin::spank {

constexpr int kStepdAbi = 4;

enum class StepdHook : int { step_prepare = 1, task_init, job_prolog, job_epilog, task_exit };

// What task_init answers when the task must not start at all (the job was released in a way
// that would run it without its world); any other failure still lets the task start.
constexpr int kStepdEndTask = 2;

struct PluginState;

// Light side: runs the hook in spiderflow_stepd.so (loaded on first use). Never throws; returns 0
// and logs when the .so cannot be loaded: the step then starts with Slurm's variables only.
int call_stepd(StepdHook hook, spank_t sp);

}  // namespace spiderflow::plugin::spank

// Exported by spiderflow_stepd.so.
extern "C" int spiderflow_stepd_abi(void);
extern "C" int spiderflow_stepd_call(int hook, spank_t sp, spiderflow::plugin::spank::PluginState* state);
