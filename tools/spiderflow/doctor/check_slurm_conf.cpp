// slurm.conf: Slurm itself can read it, slurmctld answers, and slurmctld runs with what the file
// says for every key the other checks read (an edit without `scontrol reconfigure` or a restart
// is not in force yet, and the other checks judge what is in force).
#include <utility>

#include "tools/spiderflow/doctor/checks.h"

namespace spiderflow::doctor {
namespace {

struct Key {
    const char* name;     // as slurm.conf spells it
    std::string SlurmSettings::*field;
};

const Key kCompared[] = {
    {"PluginDir", &SlurmSettings::plugindir},
    {"PlugStackConfig", &SlurmSettings::plugstack},
    {"JobSubmitPlugins", &SlurmSettings::job_submit_plugins},
    {"TopologyPlugin", &SlurmSettings::topology_plugin},
    {"TopologyParam", &SlurmSettings::topology_param},
    {"SelectType", &SlurmSettings::select_type},
    {"SchedulerType", &SlurmSettings::sched_type},
};

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return s;
}

}  // namespace

void check_slurm_conf(const SiteFacts& site, CheckResult& r) {
    const SlurmFacts& s = site.slurm;
    if (!s.read_error.empty()) {
        r.error("slurm.conf", s.read_error,
                "name the cluster's slurm.conf with --slurm-conf FILE (or SLURM_CONF=FILE), as slurmctld's -f does");
        return;
    }
    if (!s.libslurm_error.empty()) {
        r.error(s.conf_path, "Slurm cannot read it: " + s.libslurm_error,
                "fix what Slurm names (slurmctld, slurmd and every Slurm command read this file the same way)");
    }
    if (!s.files_error.empty()) {
        r.error(s.conf_path, "SpiderFlow's reader of Slurm's files refuses it: " + s.files_error,
                "fix that line (the topology and node checks below read the file with this reader)");
    }
    if (!s.controller_asked) {
        r.pass("read from " + s.conf_path + " (slurmctld not asked: --offline)");
        return;
    }
    if (!s.controller) {
        r.warning("slurmctld", "did not answer: " + s.controller_error + "; the checks below read slurm.conf as the file says",
                  "start slurmctld (or check SlurmctldHost/SlurmctldPort and munge on this host), then run doctor again");
        return;
    }
    const SlurmSettings& ctl = *s.controller;
    if (s.file_view) {
        for (const Key& k : kCompared) {
            const std::string& running = ctl.*k.field;
            const std::string& file = (*s.file_view).*k.field;
            if (running == file) continue;
            const bool plugins = std::string(k.name) == "JobSubmitPlugins";
            r.warning(k.name,
                      "slurmctld runs with '" + running + "' but " + s.conf_path + " says '" + file + "' (changed since slurmctld read it)",
                      plugins ? "restart slurmctld (scontrol reconfigure reloads job_submit plugins only when this string changes)"
                              : "scontrol reconfigure (or restart slurmctld) so that the file is in force",
                      s.where(lower(k.name)));
        }
        if (ctl.job_requeue != s.file_view->job_requeue) {
            r.warning("JobRequeue",
                      "slurmctld runs with " + std::to_string(ctl.job_requeue) + " but " + s.conf_path + " says " +
                          std::to_string(s.file_view->job_requeue),
                      "scontrol reconfigure", s.where("jobrequeue"));
        }
    }
    r.pass("slurmctld " + ctl.version + " of cluster " + ctl.cluster_name + " answers, running " + s.conf_path + " as written");
}

}  // namespace spiderflow::doctor
