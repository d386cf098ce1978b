// Names of the variables that carry a plan between the user's side, slurmctld and the steps.
// Changing one breaks running jobs across an upgrade: bump kJobEnvVersion with it.
#pragma once

namespace spiderflow::plugin {

constexpr int kJobEnvVersion = 2;
// Spank env, set by the SPANK plugin in sbatch/salloc/srun: the --llm-plan file's content as the
// user read it (plan_transport.h encoding). slurmctld reads it from the spank env only.
constexpr const char* kPlanContentVar = "SPIDERFLOW_PLAN_CONTENT";
// Job environment, set by job_submit: the plan the job runs (same encoding).
constexpr const char* kPlanDataVar = "SPIDERFLOW_PLAN_DATA";
// Set by `spiderflow launch` on the srun it starts: Slurm numbers that step's tasks in the
// plan's order (--distribution=arbitrary), so SLURM_PROCID is the rank.
constexpr const char* kLaunchedVar = "SPIDERFLOW_LAUNCHED";

}  // namespace spiderflow::plugin
