// The agent's eyes: one look at slurmctld through libslurm's API (slurm_load_node,
// slurm_load_jobs, slurm_load_reservations), never by parsing command output.
#pragma once

#include <stdexcept>

#include "services/agent/cluster_observation.h"

namespace spiderflow::agent {

// slurmctld did not answer (or answered an error): the message names the call and Slurm's text.
class SlurmUnavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws SlurmUnavailable. `now` stamps the observation and replaces end times Slurm cannot give.
ClusterObservation observe_slurm(SiteTime now);

// The GPUs in one entry of a job's gres_detail_str ("gpu:4(IDX:0-3)", "gpu:h100:8(IDX:0-7),nic:1"),
// or -1 when it names no GPU count. Exposed for its unit test.
int gpus_in_gres_detail(const std::string& detail);

}  // namespace spiderflow::agent
