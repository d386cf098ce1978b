// How `spiderflow doctor` prints its results: text for a person (findings with their fixes, the
// checks that could not run, one summary line) or JSON for configuration management.
#pragma once

#include <iosfwd>
#include <vector>

#include "tools/spiderflow/doctor/checks.h"

namespace spiderflow::doctor {

// verbose: also what each passed check saw.
void write_text(const SiteFacts& site, const std::vector<CheckResult>& results, bool verbose, std::ostream& out);
void write_json(const SiteFacts& site, const std::vector<CheckResult>& results, std::ostream& out);
bool any_findings(const std::vector<CheckResult>& results);

}  // namespace spiderflow::doctor
