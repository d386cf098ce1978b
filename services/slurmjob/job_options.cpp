#include "services/slurmjob/job_options.h"

#include "libspiderflow/plan/launch_contract.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "libspiderflow/util/errors.h"

namespace spiderflow::slurmjob {
namespace {

constexpr const char* kSource = "job options";

int positive_int(const std::string& name, const std::string& value) {
    errno = 0;
    char* end = nullptr;
    const long n = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno == ERANGE || n <= 0 || n > 100000000) {
        throw InputError(kSource, 0, "--" + name, "expected a positive integer, got '" + value + "'");
    }
    return static_cast<int>(n);
}

// Looks up NAME=value in a list of "NAME=value" strings; the last one wins, as in an env.
const std::string* find_var(const std::vector<std::string>& vars, const std::string& name, std::string& out) {
    const std::string* hit = nullptr;
    for (const auto& v : vars) {
        if (v.size() > name.size() && v.compare(0, name.size(), name) == 0 && v[name.size()] == '=') {
            out = v.substr(name.size() + 1);
            hit = &v;
        }
    }
    return hit;
}

}  // namespace

const std::vector<OptionInfo>& option_table() {
    static const std::vector<OptionInfo> table = {
        {"llm-model", "NAME", "SpiderFlow: model to train (catalog name, e.g. llama3-70b)", env::kModel},
        {"llm-global-batch", "N", "SpiderFlow: global batch in sequences per iteration", env::kGlobalBatch},
        {"llm-micro-batch", "N", "SpiderFlow: micro-batch size (default: planner chooses)", env::kMicroBatch},
        {"llm-seq-len", "N", "SpiderFlow: sequence length in tokens (default 2048)", env::kSeqLen},
        {"llm-gpus", "N", "SpiderFlow: GPUs to plan for when --gpus is not given", env::kGpus},
        {"llm-objective", "NAME", "SpiderFlow: iteration_time or throughput_per_gpu", env::kObjective},
        {"llm-policy", "NAME", "SpiderFlow: planning policy (default spinsearch)", env::kPolicy},
        {"llm-sync", "MODE",
         "SpiderFlow: sync (default) or diloco: each site trains its own replica, sites average every "
         "--llm-inner-steps steps (a different optimiser)",
         env::kSync},
        {"llm-inner-steps", "H", "SpiderFlow: DiLoCo inner steps between outer steps (default 100)", env::kInnerSteps},
        {"llm-outer-precision", "P", "SpiderFlow: DiLoCo pseudo-gradients as fp32 (default), bf16 or int8",
         env::kOuterPrecision},
        {"llm-streaming", "yes|no", "SpiderFlow: DiLoCo outer all-reduce behind the next inner steps", env::kStreaming},
        {"llm-plan", "FILE", "SpiderFlow: use this plan (from `spiderflow plan`) instead of planning", env::kPlanFile},
    };
    return table;
}

bool JobOptions::any() const {
    return !model.empty() || global_batch || micro_batch || seq_len || gpus || !objective.empty() || !policy.empty() ||
           !plan_file.empty() || !sync.empty() || inner_steps || !outer_precision.empty() || streaming;
}

std::string spank_option_var(const std::string& option_name) {
    std::string out = "_SLURM_SPANK_OPTION_spiderflow_";
    for (char c : option_name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return out;
}

void set_job_option(JobOptions& o, const std::string& name, const std::string& value) {
    auto need_value = [&] {
        if (value.empty()) throw InputError(kSource, 0, "--" + name, "needs a value");
    };
    if (name == "llm-model") {
        need_value();
        o.model = value;
    } else if (name == "llm-global-batch") {
        o.global_batch = positive_int(name, value);
    } else if (name == "llm-micro-batch") {
        o.micro_batch = positive_int(name, value);
    } else if (name == "llm-seq-len") {
        o.seq_len = positive_int(name, value);
    } else if (name == "llm-gpus") {
        o.gpus = positive_int(name, value);
    } else if (name == "llm-objective") {
        // An early word in sbatch; job_submit reads it with objective_from_string (planner.h), the
        // one reader, which this light library cannot link.
        if (value != "iteration_time" && value != "throughput_per_gpu" && value != "time" && value != "throughput") {
            throw InputError(kSource, 0, "--" + name,
                             "expected iteration_time (time) or throughput_per_gpu (throughput), got '" + value + "'");
        }
        o.objective = value;
    } else if (name == "llm-policy") {
        need_value();
        o.policy = value;
    } else if (name == "llm-sync") {
        // "either" is for `spiderflow plan`: a job runs one mode.
        if (value != "sync" && value != "diloco") {
            throw InputError(kSource, 0, "--" + name, "expected sync or diloco, got '" + value + "'");
        }
        o.sync = value;
    } else if (name == "llm-inner-steps") {
        o.inner_steps = positive_int(name, value);
    } else if (name == "llm-outer-precision") {
        if (value != "fp32" && value != "bf16" && value != "int8") {
            throw InputError(kSource, 0, "--" + name, "expected fp32, bf16 or int8, got '" + value + "'");
        }
        o.outer_precision = value;
    } else if (name == "llm-streaming") {
        if (value != "yes" && value != "no") throw InputError(kSource, 0, "--" + name, "expected yes or no, got '" + value + "'");
        o.streaming = value == "yes";
    } else if (name == "llm-plan") {
        need_value();
        o.plan_file = value;
    } else {
        throw InputError(kSource, 0, "--" + name, "unknown SpiderFlow option");
    }
}

JobOptions read_job_options(const std::vector<std::string>& spank_env, const std::vector<std::string>& environ) {
    JobOptions o;
    for (const auto& info : option_table()) {
        std::string value;
        if (find_var(spank_env, spank_option_var(info.name), value) != nullptr ||
            find_var(environ, info.env, value) != nullptr) {
            set_job_option(o, info.name, value);
        }
    }
    std::string content;
    if (find_var(spank_env, env::kPlanContent, content) != nullptr) o.plan_content = content;
    return o;
}

}  // namespace spiderflow::slurmjob
