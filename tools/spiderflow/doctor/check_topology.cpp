// The topology job_submit plans on agrees with the cluster as Slurm knows it (slurm.conf,
// gres.conf, topology.conf): `spiderflow topo check --topology --slurm-conf`'s comparison, whose
// findings say each disagreement, its line and its fix.
#include <filesystem>

#include "common/util/errors.h"
#include "tools/spiderflow/doctor/checks.h"
#include "tools/spiderflow/topo_check.h"

namespace spiderflow::doctor {

void check_topology(const SiteFacts& site, CheckResult& r) {
    if (!site.spiderflow.conf) return r.skip("spiderflow.conf does not load");
    if (site.spiderflow.conf->topology.empty()) return r.skip("spiderflow.conf names no topology");
    if (!site.slurm.read_error.empty()) return r.skip("slurm.conf could not be read");
    const slurmjob::SpiderflowConf& conf = *site.spiderflow.conf;
    std::error_code ec;
    if (std::filesystem::equivalent(conf.topology, site.slurm.conf_path, ec))
        return r.pass("the topology is slurm.conf itself");
    try {
        const cli::SlurmComparison c =
            cli::compare_topology_with_slurm(conf.topology, conf.topology_format, site.slurm.conf_path, conf.cluster);
        if (!c.error.empty()) {
            r.error(conf.topology, c.error, "make the topology and slurm.conf describe the same cluster (spiderflow.conf's cluster = names it)");
            return;
        }
        for (const Finding& f : c.findings) r.findings.push_back(f);
        if (!c.findings.empty()) {
            r.status = Status::findings;
            return;
        }
        r.pass(conf.topology + " (cluster " + c.cluster + ") agrees with " + site.slurm.conf_path + " and the files beside it");
    } catch (const InputError& e) {
        r.error(conf.topology, std::string("cannot be read: ") + e.what(), "fix the file the message names");
    }
}

}  // namespace spiderflow::doctor
