// One builder of a planning request from a front end's options: `spiderflow plan`, job_submit
// (sbatch --llm-*) and the broker fill RequestOptions and get the same PlanRequest, with the
// same checks and messages, each message naming the option as that front end spells it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "libspiderflow/model/catalog.h"
#include "libspiderflow/model/job_spec.h"
#include "libspiderflow/planner/planner.h"

namespace spiderflow {

// How a front end spells each option, for messages ("--global-batch" vs "--llm-global-batch").
struct OptionNames {
    std::string model = "--model";
    std::string global_batch = "--global-batch";
    std::string seq_len = "--seq-len";
    std::string micro_batch = "--micro-batch";
    std::string gpus = "--gpus";
    std::string gpu_mode = "--gpus-mode";
    std::string objective = "--objective";
    std::string policy = "--policy";
    std::string precision = "--precision";
    std::string sync = "--sync";
    std::string inner_steps = "--inner-steps";
    std::string outer_precision = "--outer-precision";
    std::string streaming = "--streaming";
    bool sync_either = true;   // the front end plans "either" (spiderflow plan); a job runs one mode
};

struct RequestOptions {
    // Exactly one of: a catalog model name, or a whole job spec (spiderflow plan --job FILE) that
    // the values below override.
    std::string model;
    std::optional<JobSpec> job;
    std::optional<int> global_batch;
    std::optional<int> seq_len;
    std::optional<int> micro_batch;
    std::string precision;                    // bf16, fp16 or fp32; empty: the spec's (bf16)
    // Activation recomputation as the front end states it; decides like a job spec's "recompute"
    // (plan_job). Unset: the spec's, else the planner turns it on only when nothing fits without.
    std::optional<bool> recompute;
    std::optional<int> gpus;
    std::optional<GpuCountMode> gpu_mode;
    std::string objective;                    // empty: iteration time
    std::vector<std::string> allowed_clusters;
    std::vector<std::string> forbidden_clusters;
    std::optional<int> tp, pp, dp;
    // sync (default), diloco, or either (plan sync, also plan DiLoCo and show both); empty: the
    // spec's. The DiLoCo settings below need diloco or either (or a spec that says diloco).
    std::string sync;
    std::optional<int> inner_steps;
    std::string outer_precision;              // fp32, bf16 or int8
    std::optional<bool> streaming;
    double time_limit_s = 0;
    uint64_t seed = 1;
};

// Throws InputError(source, 0, field = the option as `names` spells it, problem) for a missing
// or bad value, an unknown model (listing the known ones) or an unknown objective.
PlanRequest build_plan_request(const RequestOptions& options, const Catalog& catalog, const OptionNames& names,
                               const std::string& source);

// Applies the sync options of `o` (sync, inner_steps, outer_precision, streaming) to `job`;
// `spiderflow estimate` shares it. Returns true for "either" (job stays sync). Throws InputError
// naming the option for a bad value, or for a DiLoCo setting without diloco or either.
bool apply_sync_options(const RequestOptions& o, JobSpec& job, const OptionNames& names, const std::string& source);

// The policy to plan with: `name`, or `fallback` when empty. Throws InputError(source, 0,
// names.policy, ...) listing the policies on an unknown name.
std::string checked_policy_name(const std::string& name, const std::string& fallback, const OptionNames& names,
                                const std::string& source);

}  // namespace spiderflow
