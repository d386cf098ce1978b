// Reads everything `spiderflow doctor` judges: the configs, Slurm's view of slurm.conf (libslurm,
// slurmctld), the broker's answers. Every failure becomes a fact for the checks to report; this
// throws nothing.
#pragma once

#include "tools/spiderflow/doctor/site_facts.h"

namespace spiderflow::doctor {

SiteFacts gather_site(const DoctorOptions& options);

// slurm.conf's settings from our own parse of it, with Slurm's defaults for what it leaves out:
// what the checks read when libslurm cannot read the file. PluginDir stays empty unless the file
// sets it (Slurm's built-in one is known to libslurm alone).
SlurmSettings settings_from_file(const slurm::SlurmConf& conf);

}  // namespace spiderflow::doctor
