// JobSubmitPlugins names ours: without it nothing plans a job at submit time (the SPANK plugin's
// options reach slurmctld and are ignored, and every job runs as plain Slurm would run it).
#include <sstream>

#include "tools/spiderflow/doctor/checks.h"

namespace spiderflow::doctor {

void check_job_submit(const SiteFacts& site, CheckResult& r) {
    const SlurmSettings* s = site.slurm.settings();
    if (s == nullptr) return r.skip("slurm.conf could not be read");
    std::stringstream list(s->job_submit_plugins);
    for (std::string name; std::getline(list, name, ',');) {
        // Slurm takes "spiderflow" and "job_submit/spiderflow" alike.
        if (name == "spiderflow" || name == "job_submit/spiderflow") {
            return r.pass("JobSubmitPlugins=" + s->job_submit_plugins);
        }
    }
    const std::string has = s->job_submit_plugins.empty() ? "none" : "only " + s->job_submit_plugins;
    r.error("JobSubmitPlugins", "does not name spiderflow (" + has + "): jobs with --llm-* options are not planned",
            "JobSubmitPlugins=" + (s->job_submit_plugins.empty() ? std::string() : s->job_submit_plugins + ",") +
                "spiderflow in slurm.conf, then restart slurmctld (reconfigure loads job_submit plugins only when this "
                "string changes)",
            site.slurm.where("jobsubmitplugins"));
}

}  // namespace spiderflow::doctor
