// spiderflow.conf parses (its own reader, its own message): while it does not, SpiderFlow is off
// on this cluster (doc/slurm.md, "Failing open"): jobs with --llm-* options are refused, and the
// agent offers the federation none of the cluster's nodes.
#include "tools/spiderflow/doctor/checks.h"

namespace spiderflow::doctor {

void check_spiderflow_conf(const SiteFacts& site, CheckResult& r) {
    const ConfFacts& c = site.spiderflow;
    if (c.missing) {
        r.error(c.path, "does not exist: SpiderFlow has no topology, and every job passes unplanned",
                "write it (every key is documented in contrib/slurm/spiderflow.conf), or name yours with --spiderflow-conf");
        return;
    }
    if (!c.error.empty()) {
        r.error(c.path, "does not load: " + c.error + "; SpiderFlow is OFF on this cluster until it does",
                "fix that line (job_submit reads the file again at the next SpiderFlow job; no reconfigure needed)");
        return;
    }
    if (!c.conf) return r.skip("not read");
    if (!c.conf->enabled) {
        r.warning(c.path, "says enabled = no: both plugins pass every job through unplanned", "enabled = yes, if that was not meant");
        return;
    }
    if (c.conf->topology.empty()) {
        r.error(c.path, "names no topology: every job passes unplanned",
                "topology = FILE (our topology JSON, or the cluster's slurm.conf)");
        return;
    }
    r.pass(c.path + " loads: topology " + c.conf->topology + (c.conf->cluster.empty() ? "" : ", cluster " + c.conf->cluster));
}

}  // namespace spiderflow::doctor
