#include "common/planner/request_builder.h"

#include "common/util/errors.h"

namespace spiderflow {

namespace {

std::string known_models(const Catalog& catalog) {
    std::string out;
    for (const auto& n : catalog.model_names()) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// JobSpec::validate names the spec's own keys; the user typed an option.
std::string option_for_field(const std::string& field, const OptionNames& names) {
    if (field == "global_batch") return names.global_batch;
    if (field == "seq_len") return names.seq_len;
    if (field == "micro_batch") return names.micro_batch;
    if (field == "gpus") return names.gpus;
    if (field == "sync.inner_steps") return names.inner_steps;
    if (field.rfind("model", 0) == 0) return names.model;
    return field;
}

}  // namespace

bool apply_sync_options(const RequestOptions& o, JobSpec& job, const OptionNames& names, const std::string& source) {
    auto fail = [&](const std::string& field, const std::string& what) -> void {
        throw InputError(source, 0, field, what);
    };
    bool either = false;
    if (!o.sync.empty()) {
        if (names.sync_either && (o.sync == "either" || o.sync == "EITHER" || o.sync == "Either")) {
            job.sync.mode = SyncMode::sync;
            either = true;
        } else {
            try {
                job.sync.mode = sync_mode_from_string(o.sync, source, names.sync);
            } catch (const InputError&) {
                fail(names.sync, "unknown sync mode '" + o.sync + "' (" +
                                     (names.sync_either ? "sync, diloco or either" : "sync or diloco") + ")");
            }
        }
    }
    // DiLoCo's settings alone would change nothing: say so instead of ignoring them.
    const bool diloco_allowed = job.sync.diloco() || either;
    auto needs_diloco = [&](const std::string& option) {
        if (!diloco_allowed)
            fail(option, "only applies to DiLoCo: add " + names.sync + " diloco" + (names.sync_either ? " (or either)" : ""));
    };
    if (o.inner_steps) {
        needs_diloco(names.inner_steps);
        if (*o.inner_steps < 1 || *o.inner_steps > kMaxInnerSteps)
            fail(names.inner_steps, "must be 1.." + std::to_string(kMaxInnerSteps) + ", not " + std::to_string(*o.inner_steps));
        job.sync.inner_steps = *o.inner_steps;
    }
    if (!o.outer_precision.empty()) {
        needs_diloco(names.outer_precision);
        job.sync.outer_precision = outer_precision_from_string(o.outer_precision, source, names.outer_precision);
    }
    if (o.streaming) {
        needs_diloco(names.streaming);
        job.sync.streaming = *o.streaming;
    }
    return either;
}

PlanRequest build_plan_request(const RequestOptions& o, const Catalog& catalog, const OptionNames& names,
                               const std::string& source) {
    auto fail = [&](const std::string& field, const std::string& what) -> void {
        throw InputError(source, 0, field, what);
    };
    if (o.model.empty() && !o.job) fail(names.model, "is required (known: " + known_models(catalog) + ")");
    if (!o.model.empty() && o.job) fail(names.model, "give a model name or a whole job spec, not both");
    PlanRequest request;
    JobSpec& job = request.job;
    if (o.job) {
        job = *o.job;
    } else {
        const ModelArch* arch = catalog.model(o.model);
        if (arch == nullptr) fail(names.model, "unknown model '" + o.model + "' (known: " + known_models(catalog) + ")");
        job.model = *arch;
        if (!o.global_batch) fail(names.global_batch, "is required");
    }
    if (o.global_batch) job.global_batch = *o.global_batch;
    if (o.seq_len) job.seq_len = *o.seq_len;
    if (o.gpus) job.gpus = *o.gpus;
    if (o.gpu_mode) job.gpu_mode = *o.gpu_mode;
    if (o.micro_batch) job.micro_batch = *o.micro_batch;
    if (o.recompute) {
        job.recompute = *o.recompute;
        job.recompute_stated = true;
    }
    if (o.zero1) {
        job.zero1 = *o.zero1;
        job.zero1_stated = true;
    }
    if (o.sequence_parallel) {
        job.sequence_parallel = *o.sequence_parallel;
        job.sequence_parallel_stated = true;
    }
    if (o.flash_attention) job.flash_attention = *o.flash_attention;
    if (!o.precision.empty()) {
        try {
            job.precision = precision_from_string(o.precision);
        } catch (const InputError& e) {
            fail(names.precision.empty() ? "precision" : names.precision, e.problem());
        }
    }
    request.compare_sync_modes = apply_sync_options(o, job, names, source);
    const bool degrees_fixed = o.tp && o.pp && o.dp;
    if (!o.job && job.gpus == 0 && !degrees_fixed) fail(names.gpus, "is required: how many GPUs the job may use");
    if (job.gpus == 0 && degrees_fixed) job.gpus = *o.tp * *o.pp * *o.dp;
    try {
        job.validate();
    } catch (const InputError& e) {
        fail(option_for_field(e.field(), names), e.problem());
    }
    if (job.micro_batch > 0) request.micro_batch = job.micro_batch;
    if (!o.objective.empty()) request.objective = objective_from_string(o.objective, source, names.objective);
    static_cast<SearchSettings&>(request) = o;
    return request;
}

std::unique_ptr<PlannerPolicy> checked_planner(const std::string& name, const std::string& fallback,
                                               const OptionNames& names, const std::string& source) {
    try {
        return make_planner(name.empty() ? fallback : name);
    } catch (const InputError& e) {
        throw InputError(source, 0, names.policy, e.problem());
    }
}

std::string checked_policy_name(const std::string& name, const std::string& fallback, const OptionNames& names,
                                const std::string& source) {
    (void)checked_planner(name, fallback, names, source);
    return name.empty() ? fallback : name;
}

}  // namespace spiderflow
