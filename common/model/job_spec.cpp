// Job spec: JSON reading and the checks that give a user a clear message before any planning.
#include "common/model/job_spec.h"

#include <cerrno>
#include <cstring>

#include "common/model/model_json.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"
#include "common/util/text_file.h"

namespace spiderflow {

namespace jr = jsonread;

namespace {
constexpr const char* kJobSource = "job spec";

void check(bool ok, const char* field, const std::string& what) {
    if (!ok) throw InputError(kJobSource, 0, field, what);
}
// "sync": "diloco", or the whole object; what the object leaves out keeps SyncSpec's default.
SyncSpec parse_sync(const nlohmann::json& j, const std::string& source) {
    SyncSpec sync;
    if (j.is_string()) {
        sync.mode = sync_mode_from_string(j.get<std::string>(), source, "sync");
        return sync;
    }
    if (!j.is_object()) throw InputError(source, 0, "sync", "expected \"sync\", \"diloco\" or an object with \"mode\"");
    const jr::Object o(j, source, "sync", {"mode", "inner_steps", "outer_precision", "streaming"});
    if (o.has("mode")) sync.mode = sync_mode_from_string(o.string("mode"), source, "sync.mode");
    sync.inner_steps = o.integer_or("inner_steps", sync.inner_steps, 1, kMaxInnerSteps);
    if (o.has("outer_precision")) {
        sync.outer_precision = outer_precision_from_string(o.string("outer_precision"), source, "sync.outer_precision");
    }
    sync.streaming = o.boolean_or("streaming", sync.streaming);
    return sync;
}

}  // namespace

void JobSpec::validate() const {
    check(model.layers > 0 && model.hidden > 0 && model.heads > 0 && model.vocab > 0, "model",
          "no model: give a catalog name or layers/hidden/heads/ffn_hidden/vocab");
    check(model.hidden % model.heads == 0, "model.heads",
          "hidden " + std::to_string(model.hidden) + " is not divisible by heads " + std::to_string(model.heads));
    check(seq_len >= 1 && seq_len <= (1 << 22), "seq_len", "seq_len " + std::to_string(seq_len) + " must be 1..4194304");
    check(global_batch >= 1 && global_batch <= 100000000, "global_batch",
          "global_batch " + std::to_string(global_batch) + " must be at least 1");
    check(micro_batch >= 0, "micro_batch", "micro_batch " + std::to_string(micro_batch) + " must not be negative");
    check(micro_batch <= global_batch, "micro_batch",
          "micro_batch " + std::to_string(micro_batch) + " is larger than global_batch " + std::to_string(global_batch));
    check(micro_batch == 0 || global_batch % micro_batch == 0, "micro_batch",
          "global_batch " + std::to_string(global_batch) + " is not divisible by micro_batch " +
              std::to_string(micro_batch));
    check(gpus >= 0 && gpus <= 10000000, "gpus", "gpus " + std::to_string(gpus) + " must not be negative");
    check(sync.inner_steps >= 1 && sync.inner_steps <= kMaxInnerSteps, "sync.inner_steps",
          "inner_steps " + std::to_string(sync.inner_steps) + " must be 1.." + std::to_string(kMaxInnerSteps));
}

int SyncSpec::outer_bytes_per_param() const {
    switch (outer_precision) {
        case OuterPrecision::fp32: return 4;
        case OuterPrecision::bf16: return 2;
        case OuterPrecision::int8: return 1;
    }
    return 4;
}

const char* to_string(SyncMode m) {
    switch (m) {
        case SyncMode::sync: return "sync";
        case SyncMode::diloco: return "diloco";
    }
    return "?";
}

SyncMode sync_mode_from_string(const std::string& s, const std::string& source, const std::string& field) {
    const std::string l = lower(s);
    if (l == "sync") return SyncMode::sync;
    if (l == "diloco") return SyncMode::diloco;
    throw InputError(source, 0, field, "unknown sync mode '" + s + "' (sync or diloco)");
}

const char* to_string(Recompute r) {
    switch (r) {
        case Recompute::none: return "none";
        case Recompute::selective: return "selective";
        case Recompute::full: return "full";
    }
    return "?";
}

Recompute recompute_from_string(const std::string& s, const std::string& source, const std::string& field) {
    const std::string l = lower(s);
    if (l == "none") return Recompute::none;
    if (l == "selective") return Recompute::selective;
    if (l == "full") return Recompute::full;
    throw InputError(source, 0, field, "unknown recomputation '" + s + "' (none, selective or full)");
}

Recompute recompute_from_json(const nlohmann::json& value, const std::string& source, const std::string& field) {
    if (value.is_boolean()) return value.get<bool>() ? Recompute::full : Recompute::none;
    if (!value.is_string()) throw InputError(source, 0, field, "expected \"none\", \"selective\" or \"full\"");
    return recompute_from_string(value.get<std::string>(), source, field);
}

const char* to_string(OuterPrecision p) {
    switch (p) {
        case OuterPrecision::fp32: return "fp32";
        case OuterPrecision::bf16: return "bf16";
        case OuterPrecision::int8: return "int8";
    }
    return "?";
}

OuterPrecision outer_precision_from_string(const std::string& s, const std::string& source, const std::string& field) {
    const std::string l = lower(s);
    if (l == "fp32") return OuterPrecision::fp32;
    if (l == "bf16") return OuterPrecision::bf16;
    if (l == "int8") return OuterPrecision::int8;
    throw InputError(source, 0, field, "unknown pseudo-gradient precision '" + s + "' (fp32, bf16 or int8)");
}

const char* to_string(Precision p) {
    switch (p) {
        case Precision::bf16: return "bf16";
        case Precision::fp16: return "fp16";
        case Precision::fp32: return "fp32";
    }
    return "?";
}

Precision precision_from_string(const std::string& s) {
    const std::string l = lower(s);
    if (l == "bf16") return Precision::bf16;
    if (l == "fp16") return Precision::fp16;
    if (l == "fp32") return Precision::fp32;
    throw InputError(kJobSource, 0, "precision", "unknown precision '" + s + "' (bf16, fp16 or fp32)");
}

const char* to_string(GpuCountMode m) {
    switch (m) {
        case GpuCountMode::exact: return "exact";
        case GpuCountMode::at_most: return "at-most";
        case GpuCountMode::best: return "best";
    }
    return "?";
}

GpuCountMode gpu_count_mode_from_string(const std::string& s, const std::string& source, const std::string& field) {
    const std::string l = lower(s);
    if (l == "exact") return GpuCountMode::exact;
    if (l == "at-most" || l == "at_most") return GpuCountMode::at_most;
    if (l == "best") return GpuCountMode::best;
    throw InputError(source, 0, field, "unknown gpu mode '" + s + "' (exact, at-most or best)");
}

JobSpec parse_job_spec(const std::string& json_text, const std::string& source, const Catalog& catalog) {
    const nlohmann::json doc = jr::parse(json_text, source);
    const jr::Object j(doc, source, "",
                       {"model", "seq_len", "global_batch", "micro_batch", "precision", "optimizer", "recompute", "zero1",
                        "sequence_parallel", "flash_attention", "gpus", "gpu_mode", "sync"});
    JobSpec spec;
    const auto& m = j.at("model");
    if (m.is_string()) {
        const std::string name = m.get<std::string>();
        const ModelArch* arch = catalog.model(name);
        if (arch == nullptr) {
            std::string known;
            for (const auto& n : catalog.model_names()) known += (known.empty() ? "" : ", ") + n;
            j.fail_at("model", "unknown model '" + name + "' (known: " + known + ")");
        }
        spec.model = *arch;
    } else if (m.is_object()) {
        spec.model = model_arch_from_json(m, source, "model", false);
        if (spec.model.name.empty()) spec.model.name = "custom";
    } else {
        j.fail_at("model", "expected a catalog name or an object with dimensions");
    }
    spec.global_batch = j.integer("global_batch", 1, 100000000);
    spec.seq_len = j.integer_or("seq_len", spec.seq_len, 1, 1 << 22);
    spec.micro_batch = j.integer_or("micro_batch", spec.micro_batch, 0, 100000000);
    if (j.has("precision")) {
        const std::string precision = j.string("precision");
        try {
            spec.precision = precision_from_string(precision);
        } catch (const InputError& e) {
            j.fail_at("precision", e.problem());  // the same words, this file's name
        }
    }
    if (j.has("optimizer")) {
        const std::string opt = j.string("optimizer");
        if (lower(opt) != "adam" && lower(opt) != "adamw") {
            j.fail_at("optimizer", "unsupported optimizer '" + opt + "' (adam)");
        }
    }
    if (j.has("recompute")) {
        spec.recompute = recompute_from_json(j.at("recompute"), source, "recompute");
        spec.recompute_stated = true;
    }
    if (j.has("sequence_parallel")) {
        spec.sequence_parallel = j.boolean("sequence_parallel");
        spec.sequence_parallel_stated = true;
    }
    spec.flash_attention = j.boolean_or("flash_attention", false);
    if (j.has("zero1")) {
        spec.zero1 = j.boolean("zero1");
        spec.zero1_stated = true;
    }
    spec.gpus = j.integer_or("gpus", spec.gpus, 0, 10000000);
    if (j.has("gpu_mode")) spec.gpu_mode = gpu_count_mode_from_string(j.string("gpu_mode"), source, "gpu_mode");
    if (j.has("sync")) spec.sync = parse_sync(j.at("sync"), source);
    if (spec.gpu_mode != GpuCountMode::best && j.has("gpu_mode") && spec.gpus == 0) {
        throw InputError(source, 0, "gpus", std::string("gpu_mode ") + to_string(spec.gpu_mode) + " needs gpus > 0");
    }
    try {
        spec.validate();
    } catch (const InputError& e) {
        throw InputError(source, 0, e.field(), e.problem());  // same message, this file's name
    }
    return spec;
}

JobSpec read_job_spec(const std::string& path, const Catalog& catalog) {
    std::string text;
    if (!read_whole_file(path, text)) throw InputError(path, 0, "", std::string("cannot read job spec: ") + std::strerror(errno));
    return parse_job_spec(text, path, catalog);
}

}  // namespace spiderflow
