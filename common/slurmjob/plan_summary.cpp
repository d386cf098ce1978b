#include "common/slurmjob/plan_summary.h"

#include "common/plan/launch_contract.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "common/plan/launch_contract.h"

namespace spiderflow::slurmjob {
namespace {

constexpr const char* kPrefix = "spiderflow plan ";

bool to_int(const std::string& s, int* out) {
    if (s.empty()) return false;
    char* end = nullptr;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (*end != '\0' || v < 0 || v > 100000000) return false;
    *out = static_cast<int>(v);
    return true;
}

}  // namespace

std::string format_plan_summary(const PlanSummary& s) {
    char iter[64];
    std::snprintf(iter, sizeof iter, "%.3g", s.iteration_s);
    return kPrefix + std::string("model=") + s.model + " tp=" + std::to_string(s.tp) + " pp=" + std::to_string(s.pp) +
           " dp=" + std::to_string(s.dp) + " mb=" + std::to_string(s.micro_batch) + " nodes=" + std::to_string(s.nodes) +
           "x" + std::to_string(s.gpus_per_node) + " iter_s=" + iter +
           (s.plan_data.empty() ? "" : " plan=" + s.plan_data);
}

bool parse_plan_summary(const std::string& text, PlanSummary* out) {
    if (text.compare(0, std::string(kPrefix).size(), kPrefix) != 0) return false;
    std::map<std::string, std::string> kv;
    std::istringstream in(text.substr(std::string(kPrefix).size()));
    for (std::string word; in >> word;) {
        const auto eq = word.find('=');
        if (eq == std::string::npos) return false;
        kv[word.substr(0, eq)] = word.substr(eq + 1);
    }
    PlanSummary s;
    s.model = kv["model"];
    const std::string nodes = kv["nodes"];
    const auto x = nodes.find('x');
    if (s.model.empty() || x == std::string::npos || !to_int(kv["tp"], &s.tp) || !to_int(kv["pp"], &s.pp) ||
        !to_int(kv["dp"], &s.dp) || !to_int(kv["mb"], &s.micro_batch) || !to_int(nodes.substr(0, x), &s.nodes) ||
        !to_int(nodes.substr(x + 1), &s.gpus_per_node) || s.tp == 0 || s.pp == 0 || s.dp == 0) {
        return false;
    }
    s.iteration_s = std::atof(kv["iter_s"].c_str());
    s.plan_data = kv["plan"];
    *out = s;
    return true;
}

std::vector<std::pair<std::string, std::string>> summary_step_env(const PlanSummary& s) {
    std::vector<std::pair<std::string, std::string>> env = {
        {env::kTp, std::to_string(s.tp)},
        {env::kPp, std::to_string(s.pp)},
        {env::kDp, std::to_string(s.dp)},
        {env::kMicroBatch, std::to_string(s.micro_batch)},
    };
    if (!s.plan_data.empty()) env.push_back({env::kPlanData, s.plan_data});
    return env;
}

}  // namespace spiderflow::slurmjob
