// The agent's eyes inside slurmctld: one look at its own node, job and reservation records
// (no RPC), as the same ClusterObservation the standalone agent builds through libslurm.
#pragma once

#include "services/agent/cluster_observation.h"

namespace spiderflow::plugin {

// Takes slurmctld's config, job, node and partition read locks for one pass over the records
// (microseconds per hundred jobs; writers wait that long) and releases them before returning.
agent::ClusterObservation observe_slurmctld(SiteTime now);

}  // namespace spiderflow::plugin
