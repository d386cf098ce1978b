#include "services/coalloc/run_words.h"

#include "services/launch/launch_contract.h"

namespace spiderflow::coalloc {
namespace {

std::string step_env_value(const XJob& job, const char* name) {
    for (const auto& [k, v] : job.step_env) {
        if (k == name) return v;
    }
    return "";
}

}  // namespace

std::string describe_part(const XJob& job, size_t k) {
    return "part " + std::to_string(k) + " on " + job.parts[k].spec.cluster;
}

std::string layout_of(const XJob& job) {
    return "tp=" + step_env_value(job, env::kTp) + " pp=" + step_env_value(job, env::kPp) + " dp=" +
           step_env_value(job, env::kDp);
}

std::string placement_of(const XJob& job) {
    std::string out;
    for (const Part& p : job.parts) {
        out += (out.empty() ? "" : ",") + p.spec.cluster + ":" + std::to_string(p.spec.nodes) + "x" +
               std::to_string(p.spec.gpus_per_node);
    }
    return out;
}

}  // namespace spiderflow::coalloc
