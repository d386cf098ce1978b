#include "services/slurmjob/job_options.h"

#include "services/launch/launch_contract.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <initializer_list>

#include "common/util/errors.h"
#include "common/util/parse_number.h"

namespace spiderflow::slurmjob {
namespace {

constexpr const char* kSource = "job options";

// Worded as the command line words it ("needs an integer between 1 and ..., not 'x'").
int positive_int(const std::string& name, const std::string& value) {
    return parse_int<int>(value, 1, 100000000, kSource, 0, "--" + name);
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

// One reader per kind of value; each names the option in its error.
template <auto Field>
void set_count(JobOptions& o, const std::string& name, const std::string& value) {
    o.*Field = positive_int(name, value);
}

template <auto Field>
void set_text(JobOptions& o, const std::string& name, const std::string& value) {
    if (value.empty()) throw InputError(kSource, 0, "--" + name, "needs a value");
    o.*Field = value;
}

void check_word(const std::string& name, const std::string& value, std::initializer_list<const char*> words,
                const std::string& expected) {
    for (const char* w : words) {
        if (value == w) return;
    }
    throw InputError(kSource, 0, "--" + name, "expected " + expected + ", got '" + value + "'");
}

void set_objective(JobOptions& o, const std::string& name, const std::string& value) {
    // An early word in sbatch; job_submit reads it with objective_from_string (plan_request.h),
    // the one reader, which this light library cannot link.
    check_word(name, value, {"iteration_time", "throughput_per_gpu", "time", "throughput"},
               "iteration_time (time) or throughput_per_gpu (throughput)");
    o.objective = value;
}

void set_gpus_mode(JobOptions& o, const std::string& name, const std::string& value) {
    check_word(name, value, {"exact", "at-most", "best"}, "exact, at-most or best");
    o.gpu_mode = value == "exact" ? GpuCountMode::exact : value == "at-most" ? GpuCountMode::at_most : GpuCountMode::best;
}

void set_sync(JobOptions& o, const std::string& name, const std::string& value) {
    // "either" is for `spiderflow plan`: a job runs one mode.
    check_word(name, value, {"sync", "diloco"}, "sync or diloco");
    o.sync = value;
}

void set_outer_precision(JobOptions& o, const std::string& name, const std::string& value) {
    check_word(name, value, {"fp32", "bf16", "int8"}, "fp32, bf16 or int8");
    o.outer_precision = value;
}

void set_on_failure(JobOptions& o, const std::string& name, const std::string& value) {
    check_word(name, value, {"end", "requeue"}, "end or requeue");
    o.on_failure = value;
}

void set_replan(JobOptions& o, const std::string& name, const std::string& value) {
    check_word(name, value, {"keep", "any"}, "keep or any");
    o.replan = value;
}

template <std::optional<bool> RequestOptions::*Field>
void set_yes_no(JobOptions& o, const std::string& name, const std::string& value) {
    check_word(name, value, {"yes", "no"}, "yes or no");
    o.*Field = value == "yes";
}

// none, selective or full; yes and no, the words of releases before selective, mean full and none.
void set_recompute(JobOptions& o, const std::string& name, const std::string& value) {
    check_word(name, value, {"none", "selective", "full", "yes", "no"}, "none, selective or full");
    o.recompute = value == "selective"                ? Recompute::selective
                  : value == "full" || value == "yes" ? Recompute::full
                                                      : Recompute::none;
}

}  // namespace

const std::vector<OptionInfo>& option_table() {
    using R = RequestOptions;
    using N = OptionNames;
    static const std::vector<OptionInfo> table = {
        {"llm-model", "NAME", "SpiderFlow: model to train (catalog name, e.g. llama3-70b)", env::kModel,
         set_text<&R::model>, &N::model},
        {"llm-global-batch", "N", "SpiderFlow: global batch in sequences per iteration", env::kGlobalBatch,
         set_count<&R::global_batch>, &N::global_batch},
        {"llm-micro-batch", "N", "SpiderFlow: micro-batch size (default: planner chooses)", env::kMicroBatch,
         set_count<&R::micro_batch>, &N::micro_batch},
        {"llm-seq-len", "N", "SpiderFlow: sequence length in tokens (default 2048)", env::kSeqLen,
         set_count<&R::seq_len>, &N::seq_len},
        {"llm-gpus", "N", "SpiderFlow: GPUs to plan for when --gpus is not given", env::kGpus,
         set_count<&R::gpus>, nullptr},
        {"llm-gpus-mode", "MODE",
         "SpiderFlow: exact (default): plan on the GPUs asked for; at-most: SpiderFlow may use fewer when "
         "that is faster; best: any count",
         env::kGpusMode, set_gpus_mode, &N::gpu_mode},
        {"llm-objective", "NAME", "SpiderFlow: iteration_time or throughput_per_gpu", env::kObjective,
         set_objective, &N::objective},
        {"llm-policy", "NAME", "SpiderFlow: planning policy (default spinsearch)", env::kPolicy,
         set_text<&R::policy>, &N::policy},
        {"llm-sync", "MODE",
         "SpiderFlow: sync (default) or diloco: each site trains its own replica, sites average every "
         "--llm-inner-steps steps (a different optimiser)",
         env::kSync, set_sync, &N::sync},
        {"llm-inner-steps", "H", "SpiderFlow: DiLoCo inner steps between outer steps (default 100)", env::kInnerSteps,
         set_count<&R::inner_steps>, &N::inner_steps},
        {"llm-outer-precision", "P", "SpiderFlow: DiLoCo pseudo-gradients as fp32 (default), bf16 or int8",
         env::kOuterPrecision, set_outer_precision, &N::outer_precision},
        {"llm-streaming", "yes|no", "SpiderFlow: DiLoCo outer all-reduce behind the next inner steps", env::kStreaming,
         set_yes_no<&R::streaming>, &N::streaming},
        {"llm-distributed-optimizer", "yes|no",
         "SpiderFlow: shard optimizer states across data parallelism (ZeRO-1; default: yes whenever the plan "
         "has more than one replica)",
         env::kDistributedOptimizer, set_yes_no<&R::zero1>, &N::zero1},
        {"llm-recompute", "none|selective|full",
         "SpiderFlow: activation recomputation: none, selective (the attention core; Megatron's "
         "--recompute-granularity selective) or full (default: the fastest that fits)",
         env::kRecompute, set_recompute, &N::recompute},
        {"llm-sequence-parallel", "yes|no",
         "SpiderFlow: Megatron's sequence parallelism (default: yes wherever tensor parallelism is used)",
         env::kSequenceParallel, set_yes_no<&R::sequence_parallel>, &N::sequence_parallel},
        {"llm-on-failure", "end|requeue",
         "SpiderFlow: when a part of a cross-site job fails (a node, a preemption, a site lost): end the job, or "
         "requeue it, planned again without what failed (default: the site's)",
         env::kOnFailure, set_on_failure, nullptr},
        {"llm-replan", "keep|any",
         "SpiderFlow: a requeued job's new plan keeps tp and pp so the checkpoint loads (keep, the default), or may "
         "take any layout (any: frameworks that reshard on load)",
         env::kReplan, set_replan, nullptr},
        {"llm-plan", "FILE", "SpiderFlow: use this plan (from `spiderflow plan`) instead of planning", env::kPlanFile,
         set_text<&JobOptions::plan_file>, nullptr},
    };
    return table;
}

bool JobOptions::any() const {
    // The plan's content alone asks nothing: sbatch sends it only beside --llm-plan.
    JobOptions asked = *this;
    asked.plan_content.clear();
    return asked != JobOptions{};
}

std::string spank_option_var(const std::string& option_name) {
    std::string out = "_SLURM_SPANK_OPTION_spiderflow_";
    for (char c : option_name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return out;
}

void set_job_option(JobOptions& o, const std::string& name, const std::string& value) {
    for (const auto& info : option_table()) {
        if (name == info.name) return info.set(o, name, value);
    }
    throw InputError(kSource, 0, "--" + name, "unknown SpiderFlow option");
}

const OptionNames& sbatch_option_names() {
    static const OptionNames names = [] {
        OptionNames n;
        for (const auto& info : option_table()) {
            if (info.names_member != nullptr) n.*info.names_member = std::string("--") + info.name;
        }
        n.sync_either = false;  // a job runs one mode
        return n;
    }();
    return names;
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
