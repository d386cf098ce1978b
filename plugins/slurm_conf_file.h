// The slurm.conf the Slurm process a plugin runs in has read (slurmctld's -f, SLURM_CONF, or the
// built-in path): spiderflow.conf is looked for beside it (spiderflow_conf_path).
#pragma once

#include <slurm/slurm.h>

#include <string>

// Weak: a plugin must still load in a process that lacks Slurm's config (it then answers "").
extern "C" slurm_conf_t slurm_conf __attribute__((weak));

inline std::string host_slurm_conf_file() {
    return (&slurm_conf != nullptr && slurm_conf.slurm_conf != nullptr) ? std::string(slurm_conf.slurm_conf) : std::string();
}
