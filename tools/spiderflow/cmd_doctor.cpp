// `spiderflow doctor`: checks one site end to end (Slurm's files and daemons, our plugins and
// configs, the broker and this cluster's agent) and prints each finding with its fix. The checks
// live in doctor/ (one file each, run from one table); this file is the command line.
#include <iostream>
#include <string>
#include <vector>

#include "common/util/cli_options.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/doctor/checks.h"
#include "tools/spiderflow/doctor/gather_site.h"
#include "tools/spiderflow/doctor/report.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kUsage =
    "usage: spiderflow doctor [--slurm-conf FILE] [--spiderflow-conf FILE] [--agent-conf FILE]\n"
    "                         [--broker URL] [--token-file FILE] [--ca FILE] [--offline]\n"
    "                         [--format text|json] [--verbose]\n\n"
    "Checks this cluster's SpiderFlow setup end to end and prints each problem with its fix:\n";

constexpr const char* kFooter =
    "\nslurm.conf is read by Slurm's own library (its defaults filled in), and slurmctld is asked what\n"
    "it runs with; without an answer the file alone is checked. Run it as root on the controller's\n"
    "host, where the agent's token is readable. doc/doctor.md explains each check.\n\n"
    "Exit status: 0 every check that ran passed, 1 findings, 2 bad options.\n";

std::string check_list() {
    std::string out;
    for (const doctor::Check& c : doctor::doctor_checks()) {
        std::string name = c.name;
        out += "  " + name + std::string(name.size() < 17 ? 17 - name.size() : 1, ' ') + c.title + "\n";
    }
    return out + "\n";
}

int run_doctor(const std::vector<std::string>& args) {
    doctor::DoctorOptions o;
    std::string format = "text";
    bool verbose = false;
    const std::string usage = std::string(kUsage) + check_list();
    OptionTable t("spiderflow doctor", usage, kFooter, 26);
    t.value("--slurm-conf", "FILE", "the cluster's slurm.conf (default: Slurm's own choice: $SLURM_CONF,\nthen its built-in path)",
            store(&o.slurm_conf));
    t.value("--spiderflow-conf", "FILE", "default: where job_submit looks ($SPIDERFLOW_CONF, else beside\nslurm.conf)",
            store(&o.spiderflow_conf));
    t.value("--agent-conf", "FILE",
            std::string("default: spiderflow.conf's controller_agent, else ") + doctor::kDefaultAgentConf + "\n(none: no federation checks)",
            store(&o.agent_conf));
    t.value("--broker", "URL", "default: agent.conf's broker", store(&o.broker));
    t.value("--token-file", "FILE", "default: agent.conf's token_file", store(&o.token_file));
    t.value("--ca", "FILE", "default: agent.conf's ca_file", store(&o.ca_file));
    t.flag("--offline", "ask neither slurmctld nor the broker: check the files alone", set(&o.offline));
    t.value("--format", "FMT", "text (default) or json", one_of(&format, {"text", "json"}));
    t.flag("--verbose", "also say what each passed check saw", set(&verbose));
    if (!t.parse_or_help(args, 1, std::cout)) return kExitOk;
    const doctor::SiteFacts site = doctor::gather_site(o);
    const std::vector<doctor::CheckResult> results = doctor::run_checks(site);
    if (format == "json") doctor::write_json(site, results, std::cout);
    else doctor::write_text(site, results, verbose, std::cout);
    return doctor::any_findings(results) ? kExitFindings : kExitOk;
}

const Registration reg{"doctor", "check this cluster's setup end to end; each problem with its fix", &run_doctor};

}  // namespace
}  // namespace spiderflow::cli
