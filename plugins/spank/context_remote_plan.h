// slurmstepd, once per step and node before the tasks start: hands the plan to the tasks of
// salloc and srun jobs, whose environment job_submit cannot reach.
#pragma once

extern "C" {
#include <slurm/spank.h>
}

namespace spiderflow::plugin::spank {

int remote_user_init(spank_t sp);

}  // namespace spiderflow::plugin::spank
