// The checks of `spiderflow doctor`, one small file each (check_*.cpp), run in the order of one
// table: each looks at the gathered facts, and says it passed (with what it saw), found problems
// (each with its fix) or could not run (and why: an earlier check's problem, or --offline).
#pragma once

#include <string>
#include <vector>

#include "common/topology/checks.h"
#include "tools/spiderflow/doctor/site_facts.h"

namespace spiderflow::doctor {

enum class Status { passed, findings, skipped };
const char* status_name(Status s);  // "passed", "findings", "skipped"

struct CheckResult {
    std::string name;   // "plugins"
    std::string title;  // what it checks, for --help and the JSON
    Status status = Status::passed;
    std::string detail;  // passed: what it saw; skipped: why
    std::vector<Finding> findings;

    // Helpers for the checks: a finding sets status to findings.
    void error(std::string what, std::string message, std::string fix, std::string where = "");
    void warning(std::string what, std::string message, std::string fix, std::string where = "");
    void skip(std::string why);
    void pass(std::string what_was_seen);
};

using CheckFn = void (*)(const SiteFacts&, CheckResult&);

struct Check {
    const char* name;
    const char* title;
    CheckFn run;
};

// Every check in the order they run; names unique.
const std::vector<Check>& doctor_checks();
std::vector<CheckResult> run_checks(const SiteFacts& site);

// The checks, each in check_NAME.cpp.
void check_slurm_conf(const SiteFacts&, CheckResult&);
void check_plugins(const SiteFacts&, CheckResult&);
void check_plugstack(const SiteFacts&, CheckResult&);
void check_job_submit(const SiteFacts&, CheckResult&);
void check_topology_plugin(const SiteFacts&, CheckResult&);
void check_spiderflow_conf(const SiteFacts&, CheckResult&);
void check_topology(const SiteFacts&, CheckResult&);
void check_token(const SiteFacts&, CheckResult&);
void check_broker(const SiteFacts&, CheckResult&);
void check_agent(const SiteFacts&, CheckResult&);
void check_clock(const SiteFacts&, CheckResult&);
void check_job_requeue(const SiteFacts&, CheckResult&);

}  // namespace spiderflow::doctor
