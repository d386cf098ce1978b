#include "tools/spiderflow/doctor/report.h"

#include <nlohmann/json.hpp>
#include <ostream>

#include "tools/spiderflow/topo_check.h"

namespace spiderflow::doctor {
namespace {

struct Counts {
    size_t passed = 0, with_findings = 0, skipped = 0, errors = 0, warnings = 0;
};

Counts count(const std::vector<CheckResult>& results) {
    Counts c;
    for (const CheckResult& r : results) {
        if (r.status == Status::passed) ++c.passed;
        else if (r.status == Status::skipped) ++c.skipped;
        else ++c.with_findings;
        const size_t e = count_errors(r.findings);
        c.errors += e;
        c.warnings += r.findings.size() - e;
    }
    return c;
}

std::string where_slurm_is(const SiteFacts& site) {
    if (site.slurm.controller) return "as slurmctld " + site.slurm.controller->version + " runs it";
    if (!site.slurm.read_error.empty()) return "not readable";
    return "as the file says";
}

}  // namespace

bool any_findings(const std::vector<CheckResult>& results) { return count(results).with_findings > 0; }

void write_text(const SiteFacts& site, const std::vector<CheckResult>& results, bool verbose, std::ostream& out) {
    const std::string cluster = site.cluster();
    out << "spiderflow doctor: cluster " << (cluster.empty() ? "(unknown)" : cluster) << ", slurm.conf "
        << (site.slurm.conf_path.empty() ? "(none)" : site.slurm.conf_path) << " (" << where_slurm_is(site) << ")\n";
    for (const CheckResult& r : results) {
        if (r.status == Status::passed && verbose) out << "ok: " << r.name << ": " << r.detail << "\n";
        for (const Finding& f : r.findings) {
            out << severity_name(f.severity) << ": " << r.name << ": " << f.what << ": " << f.message << "\n";
            if (!f.where.empty()) out << "  at:  " << f.where << "\n";
            out << "  fix: " << f.fix << "\n";
        }
    }
    for (const CheckResult& r : results)
        if (r.status == Status::skipped) out << "skipped: " << r.name << ": " << r.detail << "\n";
    const Counts c = count(results);
    if (c.with_findings == 0) {
        if (c.skipped == 0) out << "all " << results.size() << " checks passed\n";
        else out << "all " << c.passed << " checks that ran passed; " << c.skipped << " skipped\n";
        return;
    }
    out << c.with_findings << " of " << results.size() << " checks found problems: " << c.errors << " error(s), "
        << c.warnings << " warning(s)";
    if (c.skipped > 0) out << "; " << c.skipped << " skipped";
    out << "\n";
}

void write_json(const SiteFacts& site, const std::vector<CheckResult>& results, std::ostream& out) {
    using nlohmann::ordered_json;
    ordered_json j;
    j["cluster"] = site.cluster();
    j["slurm_conf"] = site.slurm.conf_path;
    j["slurm_settings_from"] = site.slurm.settings() ? site.slurm.settings()->source : "";
    j["spiderflow_conf"] = site.spiderflow.path;
    j["agent_conf"] = site.agent.path;
    j["broker"] = site.broker.url;
    j["checks"] = ordered_json::array();
    for (const CheckResult& r : results) {
        ordered_json c;
        c["name"] = r.name;
        c["title"] = r.title;
        c["status"] = status_name(r.status);
        if (!r.detail.empty()) c[r.status == Status::skipped ? "reason" : "seen"] = r.detail;
        c["findings"] = ordered_json::array();
        for (const Finding& f : r.findings) c["findings"].push_back(cli::finding_to_json(f));
        j["checks"].push_back(std::move(c));
    }
    const Counts c = count(results);
    j["passed"] = c.passed;
    j["with_findings"] = c.with_findings;
    j["skipped"] = c.skipped;
    j["errors"] = c.errors;
    j["warnings"] = c.warnings;
    out << j.dump(2) << "\n";
}

}  // namespace spiderflow::doctor
