// The slurm.conf the Slurm process a plugin runs in has read (slurmctld's -f, SLURM_CONF, or the
// built-in path), and the spiderflow.conf a plugin reads: looked for beside it (spiderflow_conf_path).
#pragma once

#include <slurm/slurm.h>

#include <string>

#include "services/slurmjob/spiderflow_conf.h"

// Weak: a plugin must still load in a process that lacks Slurm's config (it then answers "").
extern "C" slurm_conf_t slurm_conf __attribute__((weak));

inline std::string host_slurm_conf_file() {
    return (&slurm_conf != nullptr && slurm_conf.slurm_conf != nullptr) ? std::string(slurm_conf.slurm_conf) : std::string();
}

// Where every plugin finds spiderflow.conf: SPIDERFLOW_CONF, else `plugin_arg` (plugstack.conf's
// conf=), else beside the host's slurm.conf.
inline std::string site_conf_path(const std::string& plugin_arg = "") {
    return spiderflow::slurmjob::spiderflow_conf_path(plugin_arg, host_slurm_conf_file());
}
