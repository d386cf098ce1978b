// slurm.conf as Slurm itself reads it: libslurm's parser with Slurm's defaults (PluginDir,
// PlugStackConfig, JobRequeue, the built-in slurm.conf path), then slurmctld's own settings
// (slurm_load_ctl_conf) when it answers. libslurm ends the process (fatal) on a slurm.conf it
// cannot parse and waits out MessageTimeout on a controller that is down, so this runs in a
// child process with a deadline: the doctor survives and reports what Slurm said.
#pragma once

#include <optional>
#include <string>

#include "tools/spiderflow/doctor/site_facts.h"

namespace spiderflow::doctor {

struct LibslurmView {
    std::string conf_path;                 // the file libslurm read (its own choice when none was given)
    std::optional<SlurmSettings> file;     // libslurm's reading of it
    std::string file_error;                // what libslurm said instead (its fatal line)
    std::optional<SlurmSettings> controller;
    std::string controller_error;
};

// `slurm_conf` empty: libslurm's own choice (SLURM_CONF, then its built-in path).
LibslurmView read_with_libslurm(const std::string& slurm_conf, bool ask_controller, double timeout_s);

// The child's report, parsed (exposed for tests): "path=...", "file.KEY=VALUE", "ctl.KEY=VALUE",
// "ctl_error=..." lines.
LibslurmView parse_libslurm_report(const std::string& report);

}  // namespace spiderflow::doctor
