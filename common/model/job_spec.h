// What an ML user asks for: a model, a batch, a GPU count; the planner picks the layout.
#pragma once

#include <compare>
#include <string>

#include "common/model/catalog.h"

namespace spiderflow {

enum class Precision { bf16, fp16, fp32 };

// How replicas in different sites keep their weights in step.
enum class SyncMode {
    sync,     // every iteration: gradients all-reduced over every replica (data parallel)
    diloco,   // DiLoCo: each site trains its own replica; every H inner steps the sites
              // all-reduce pseudo-gradients (weights then minus weights now) and apply an outer
              // optimizer. Another optimisation: convergence per token differs from sync.
};

// Wire format of the pseudo-gradients in a DiLoCo outer step.
enum class OuterPrecision { fp32, bf16, int8 };

struct SyncSpec {
    SyncMode mode = SyncMode::sync;
    // H, inner steps between outer steps: INTELLECT-1 used 100, the DiLoCo paper 500.
    int inner_steps = 100;
    OuterPrecision outer_precision = OuterPrecision::fp32;
    // Streaming DiLoCo: the outer all-reduce runs behind the next H inner steps instead of
    // blocking them (up to what those steps' time can hide).
    bool streaming = false;

    bool diloco() const { return mode == SyncMode::diloco; }
    int outer_bytes_per_param() const;

    auto operator<=>(const SyncSpec&) const = default;
};

// Activation recomputation, Megatron-LM's --recompute-granularity (Korthikanti et al. 2022,
// "Reducing Activation Recomputation in Large Transformer Models", section 5).
enum class Recompute {
    none,       // every activation kept
    selective,  // only the attention core (QK^T, softmax, dropout, AV) again; its s x s activations are not kept
    full,       // every layer's forward again before its backward; only each layer's input is kept
                // (Megatron's --recompute-method uniform --recompute-num-layers 1)
};
// "none", "selective", "full". The reader also takes a plan file's older true (full) and false
// (none) through recompute_from_json (plan_json.cpp, job_spec.cpp). Throws InputError(source, 0,
// field) naming the choices.
const char* to_string(Recompute r);
Recompute recompute_from_string(const std::string& s, const std::string& source, const std::string& field);

enum class GpuCountMode {
    exact,    // use exactly `gpus`
    at_most,  // any count up to `gpus`
    best,     // whatever count gives the best objective
};

struct JobSpec {
    ModelArch model;
    int seq_len = 2048;
    int global_batch = 0;        // sequences per iteration
    int micro_batch = 0;         // sequences per micro-batch; 0 = planner chooses
    Precision precision = Precision::bf16;
    Recompute recompute = Recompute::none;
    // The spec said "recompute". When it did not, the planner weighs none, selective and full and
    // keeps the fastest that fits (plan_job, common/planner/plan_job.h).
    bool recompute_stated = false;
    // Megatron-LM's sequence parallelism (tp > 1 only): the activations outside the TP regions
    // (layer norms, dropouts) are split across tp; each TP all-reduce becomes a reduce-scatter and
    // an all-gather of the same ring volume. When the spec leaves it open the planner turns it on
    // wherever tp > 1, as it saves memory for nothing (plan_job).
    bool sequence_parallel = false;
    bool sequence_parallel_stated = false;
    // FlashAttention (Megatron's --attention-backend flash): no s x s attention scores are kept.
    // Only as stated: whether the user's build has it is theirs to say.
    bool flash_attention = false;
    bool zero1 = false;          // optimizer states sharded across DP
    // The spec said "zero1". When it did not, the planner shards them whenever the plan has more
    // than one replica (plan_job): Megatron's distributed optimizer moves the all-reduce's bytes
    // as a reduce-scatter and an all-gather, so it saves memory and optimizer time for nothing.
    bool zero1_stated = false;
    int gpus = 0;
    GpuCountMode gpu_mode = GpuCountMode::exact;
    SyncSpec sync;               // synchronous unless the user chose DiLoCo

    int bytes_per_param() const { return precision == Precision::fp32 ? 4 : 2; }
    bool recomputes() const { return recompute != Recompute::none; }
    // Throws InputError (source "job spec", field named) when a value is out of range.
    void validate() const;

    // Field by field: a request that carries a whole spec is keyed by all of it.
    auto operator<=>(const JobSpec&) const = default;
};

const char* to_string(Precision p);
Precision precision_from_string(const std::string& s);  // throws InputError
// "exact", "at-most", "best": the one spelling every writer uses. The reader also takes the
// older "at_most". Throws InputError(source, 0, field) naming the choices.
const char* to_string(GpuCountMode m);
GpuCountMode gpu_count_mode_from_string(const std::string& s, const std::string& source, const std::string& field);

// "sync", "diloco"; "int8", "bf16", "fp32". Readers throw InputError(source, 0, field) naming
// the choices.
const char* to_string(SyncMode m);
SyncMode sync_mode_from_string(const std::string& s, const std::string& source, const std::string& field);
const char* to_string(OuterPrecision p);
OuterPrecision outer_precision_from_string(const std::string& s, const std::string& source, const std::string& field);
// Inner steps H: 1 .. kMaxInnerSteps.
constexpr int kMaxInnerSteps = 1000000;

// Reads a job spec from JSON text ({"model": "llama3-70b" | {...dims...}, "seq_len": ..., ...,
// "sync": "sync" | "diloco" | {"mode": "diloco", "inner_steps": 100, "outer_precision": "int8",
// "streaming": false}}).
JobSpec parse_job_spec(const std::string& json_text, const std::string& source, const Catalog& catalog);
JobSpec read_job_spec(const std::string& path, const Catalog& catalog);

}  // namespace spiderflow
