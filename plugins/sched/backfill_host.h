// sched/backfill, started and stopped by sched/spiderflow exactly as slurmctld would start it
// under SchedulerType=sched/backfill: its own init(), fini() and sched_p_reconfig(), from the
// sched_backfill.so in PluginDir.
#pragma once

namespace spiderflow::plugin {

// Loads sched_backfill.so and runs its init(); SLURM_ERROR (logged) when it cannot.
int start_backfill();
void reconfigure_backfill();
// Stops and joins backfill's thread (its fini()) and unloads it.
void stop_backfill();

}  // namespace spiderflow::plugin
