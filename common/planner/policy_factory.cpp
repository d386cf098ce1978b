// Policies are built by name from one table; the table is also the list of valid names.
#include <algorithm>
#include <cctype>

#include "common/planner/planner.h"
#include "common/planner/spinsearch/spinsearch.h"
#include "common/util/errors.h"
// ---- policy headers: add one include per baseline below this line ----
#include "common/planner/baselines/exhaustive/exhaustive.h"
#include "common/planner/baselines/first_fit/first_fit.h"
#include "common/planner/baselines/genetic/genetic.h"
#include "common/planner/baselines/global_ilp/global_ilp.h"
#include "common/planner/baselines/greedy/greedy.h"
#include "common/planner/baselines/published/published.h"

namespace spiderflow {
namespace {

struct PolicyEntry {
    const char* name;
    std::unique_ptr<PlannerPolicy> (*make)();
};

// ---- POLICY TABLE: one line per policy, {"name", constructor}. spinsearch stays first (the
// default). ----
const PolicyEntry kPolicies[] = {
    {"spinsearch", make_spinsearch},
    {"global-ilp", make_global_ilp},
    {"genetic", make_genetic},
    {"greedy", make_greedy},
    {"first-fit", make_first_fit},
    {"exhaustive", make_exhaustive},
    // The same searches deciding with their papers' own models, scored on the real federation.
    {"genetic-dtfm", make_genetic_dtfm},
    {"ilp-oblivious", make_ilp_oblivious},
    {"greedy-atlas", make_greedy_atlas},
};
// ---- end of policy table ----

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

}  // namespace

std::unique_ptr<PlannerPolicy> make_planner(const std::string& name) {
    const std::string key = lower(name);
    for (const PolicyEntry& e : kPolicies)
        if (key == e.name) return e.make();
    std::string valid;
    for (const std::string& n : planner_names()) valid += (valid.empty() ? "" : ", ") + n;
    throw InputError("plan request", 0, "policy", "unknown planner '" + name + "'; valid names: " + valid);
}

std::vector<std::string> planner_names() {
    std::vector<std::string> out;
    for (const PolicyEntry& e : kPolicies) out.emplace_back(e.name);
    return out;
}

const char* to_string(Objective o) {
    switch (o) {
        case Objective::iteration_time: return "iteration_time";
        case Objective::throughput_per_gpu: return "throughput_per_gpu";
    }
    return "iteration_time";
}

Objective objective_from_string(const std::string& s, const std::string& source, const std::string& field) {
    if (s == "iteration_time" || s == "time") return Objective::iteration_time;
    if (s == "throughput_per_gpu" || s == "throughput") return Objective::throughput_per_gpu;
    throw InputError(source, 0, field, "expected iteration_time (time) or throughput_per_gpu (throughput), got '" + s + "'");
}

}  // namespace spiderflow
