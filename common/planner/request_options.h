// A front end's options as one request: `spiderflow plan`'s flags and sbatch's --llm-* options
// (services/slurmjob/job_options.h derives from RequestOptions) fill the same fields, and
// build_plan_request (request_builder.h) turns them into a PlanRequest. Light on purpose: the
// SPANK plugin in every sbatch reads options into it without linking the planner.
#pragma once

#include <compare>
#include <optional>
#include <string>

#include "common/model/job_spec.h"
#include "common/planner/plan_request.h"

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
    std::string zero1 = "--zero1";
    std::string recompute = "--recompute";
    std::string sequence_parallel = "--sequence-parallel";
    bool sync_either = true;   // the front end plans "either" (spiderflow plan); a job runs one mode
};

// Unset fields leave the spec's value (or the planner's choice). Compared field by field, so a
// field added here is in every cache key built from it (services/slurmjob/submit_planner.h).
struct RequestOptions : SearchSettings {
    // Exactly one of: a catalog model name, or a whole job spec (spiderflow plan --job FILE) that
    // the values below override.
    std::string model;
    std::optional<JobSpec> job;
    std::optional<int> global_batch;
    std::optional<int> seq_len;
    std::optional<int> micro_batch;
    std::string precision;                    // bf16, fp16 or fp32; empty: the spec's (bf16)
    // Activation recomputation as the front end states it; decides like a job spec's "recompute"
    // (plan_job). Unset: the spec's, else the planner weighs none, selective and full.
    std::optional<Recompute> recompute;
    // Sequence parallelism as stated; unset: the spec's, else on wherever tp > 1 (plan_job).
    std::optional<bool> sequence_parallel;
    // FlashAttention as stated (the cost model keeps no s x s scores); unset: the spec's.
    std::optional<bool> flash_attention;
    // The distributed optimizer (ZeRO-1) as the front end states it; decides like a job spec's
    // "zero1". Unset: the spec's, else on whenever the plan has more than one replica.
    std::optional<bool> zero1;
    std::optional<int> gpus;
    std::optional<GpuCountMode> gpu_mode;
    std::string objective;                    // empty: iteration time
    std::string policy;                       // planner name; empty: the front end's default
    // sync (default), diloco, or either (plan sync, also plan DiLoCo and show both); empty: the
    // spec's. The DiLoCo settings below need diloco or either (or a spec that says diloco).
    std::string sync;
    std::optional<int> inner_steps;
    std::string outer_precision;              // fp32, bf16 or int8
    std::optional<bool> streaming;

    auto operator<=>(const RequestOptions&) const = default;
};

}  // namespace spiderflow
