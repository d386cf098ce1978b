#include "tools/spiderflow/doctor/checks.h"

#include <exception>

namespace spiderflow::doctor {

const char* status_name(Status s) {
    switch (s) {
        case Status::passed: return "passed";
        case Status::findings: return "findings";
        case Status::skipped: return "skipped";
    }
    return "?";
}

void CheckResult::error(std::string what, std::string message, std::string fix, std::string where) {
    findings.push_back({Severity::error, std::move(what), std::move(message), std::move(fix), std::move(where)});
    status = Status::findings;
}

void CheckResult::warning(std::string what, std::string message, std::string fix, std::string where) {
    findings.push_back({Severity::warning, std::move(what), std::move(message), std::move(fix), std::move(where)});
    status = Status::findings;
}

void CheckResult::skip(std::string why) {
    status = Status::skipped;
    detail = std::move(why);
}

void CheckResult::pass(std::string what_was_seen) {
    if (status == Status::passed) detail = std::move(what_was_seen);
}

// The order is the order an admin fixes things in: Slurm's own files, our plugins in them, our
// config, then the federation (the broker, this cluster's agent, clocks, requeue).
const std::vector<Check>& doctor_checks() {
    static const std::vector<Check> checks = {
        {"slurm_conf", "Slurm reads slurm.conf and slurmctld answers with what the file says", &check_slurm_conf},
        {"plugins", "our plugins are in PluginDir, built for this Slurm", &check_plugins},
        {"plugstack", "plugstack.conf (or a file it includes) loads the SPANK plugin", &check_plugstack},
        {"job_submit", "slurm.conf's JobSubmitPlugins names spiderflow", &check_job_submit},
        {"topology_plugin", "Slurm numbers nodes by leaf switch, as plans number ranks", &check_topology_plugin},
        {"spiderflow_conf", "spiderflow.conf parses and names a topology", &check_spiderflow_conf},
        {"topology", "the topology agrees with slurm.conf and gres.conf", &check_topology},
        {"token", "the agent's token file is readable by its owner alone", &check_token},
        {"broker", "the broker answers", &check_broker},
        {"agent", "this cluster's agent publishes to the broker", &check_agent},
        {"clock", "this host's clock agrees with the broker's", &check_clock},
        {"job_requeue", "Slurm's JobRequeue fits cross-site jobs' on_failure", &check_job_requeue},
    };
    return checks;
}

std::vector<CheckResult> run_checks(const SiteFacts& site) {
    std::vector<CheckResult> out;
    for (const Check& c : doctor_checks()) {
        CheckResult r;
        r.name = c.name;
        r.title = c.title;
        try {
            c.run(site, r);
        } catch (const std::exception& e) {
            // A check that cannot finish is a finding of its own, never the end of the others.
            r.error(c.name, std::string("the check could not finish: ") + e.what(), "fix what the message names, then run doctor again");
        }
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace spiderflow::doctor
