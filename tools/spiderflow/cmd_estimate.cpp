// `spiderflow estimate`: the cost model's prediction for one job on one given layout.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cost/cost_model.h"
#include "common/cost/cost_parts.h"
#include "common/cost/memory.h"
#include "common/model/catalog.h"
#include "common/model/job_spec.h"
#include "common/plan/layout_file.h"
#include "common/plan/plan_json.h"
#include "common/plan/sequential_layout.h"
#include "common/planner/request_builder.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "common/util/text_file.h"
#include "common/util/units.h"
#include "common/util/cli_options.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/cost_flags.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kUsage =
    "usage: spiderflow estimate --topology FILE (--model NAME | --job FILE) --global-batch N --seq-len S\n"
    "                           --tp T --pp P --dp D [options]\n"
    "       spiderflow estimate --topology FILE --plan PLAN.json [options]\n"
    "       spiderflow estimate --topology FILE (--model NAME | --job FILE) --global-batch N --seq-len S\n"
    "                           --layout LAYOUT.json [options]\n\n"
    "Predicts one training iteration of a job on a given layout with the shared cost model:\n"
    "iteration time and its breakdown, memory per GPU for every pipeline stage, tokens/s, MFU\n"
    "and scaling efficiency (against the same GPUs in one site). Without --plan the layout is\n"
    "the plain one: cells filled cluster by cluster, node by node, stage-major. --layout takes\n"
    "the layout you already run from a file you write by hand (doc/layout-file.md): degrees,\n"
    "micro-batch and per stage its clusters or nodes and layers; the job is the options'.\n\n";

constexpr const char* kFooter = "\nExit status: 0 the layout fits, 1 it does not (the reason is printed), 2 bad input.\n";

[[noreturn]] void usage_error(const std::string& field, const std::string& what) {
    throw InputError("spiderflow estimate", 0, field, what);
}

struct Args {
    std::string topology, reader, model, job, catalog, plan, layout, format = "text";
    // 0: not given (1 each); a plan or layout file gives its own, so given degrees are refused there.
    int global_batch = 0, seq_len = 0, tp = 0, pp = 0, dp = 0, micro_batch = 0;
    std::optional<int> virtual_stages;
    std::string precision;
    std::optional<Recompute> recompute;
    std::optional<bool> sequence_parallel, flash_attention;
    bool zero1 = false, flat_dp = false;
    RequestOptions sync;   // only its sync fields
    CostOptions options;
};

// Fills `a` from the command line; false when --help was asked for (and printed).
bool parse_args(const std::vector<std::string>& args, Args& a) {
    OptionTable t("spiderflow estimate", kUsage, kFooter, 25);
    t.value("--topology", "FILE", "federation topology (spiderflow JSON, slurm.conf or hwloc XML)", store(&a.topology));
    t.value("--reader", "NAME", "topology reader (default: from the file name)", store(&a.reader));
    t.value("--model", "NAME", "model from the built-in catalog (e.g. llama3-70b)", store(&a.model));
    t.value("--job", "FILE", "job spec JSON; the options below override its values", store(&a.job));
    t.value("--catalog", "FILE", "extra GPU/model catalog JSON on top of the built-in one", store(&a.catalog));
    t.value("--global-batch", "N", "sequences per iteration", integer(&a.global_batch, 1));
    t.value("--seq-len", "S", "tokens per sequence (default 2048)", integer(&a.seq_len, 1));
    t.value("--tp", "T", "", integer(&a.tp, 1));
    t.value("--pp", "P", "", integer(&a.pp, 1));
    t.value("--dp", "D", "", integer(&a.dp, 1));
    t.line("--tp T --pp P --dp D", "parallel degrees (default 1 each)");
    t.value("--micro-batch", "M", "sequences per micro-batch (default: the job's, else 1)",
            integer(&a.micro_batch, 1));
    t.value("--precision", "P", "bf16 (default), fp16 or fp32", store(&a.precision));
    add_recompute_option(t, &a.recompute);
    t.flag("--zero1", "shard optimizer states across data parallelism", set(&a.zero1));
    t.flag("--flat-dp", "one flat DP ring instead of the hierarchical all-reduce", set(&a.flat_dp));
    t.value("--sync", "MODE",
            "sync (default) or diloco: each site trains its own replica and the\n"
            "sites average pseudo-gradients every --inner-steps steps",
            store(&a.sync.sync));
    t.value("--inner-steps", "H", "DiLoCo: inner steps between outer steps (default 100)",
            integer(&a.sync.inner_steps, 1));
    t.value("--outer-precision", "P", "DiLoCo: pseudo-gradients on the wire as fp32 (default), bf16 or int8",
            store(&a.sync.outer_precision));
    t.flag("--streaming", "DiLoCo: overlap the outer all-reduce with the next inner steps",
           [&a](const std::string&) { a.sync.streaming = true; });
    t.value("--plan", "FILE", "take the whole layout (and job) from a plan JSON", store(&a.plan));
    t.value("--layout", "FILE",
            "take the layout from a layout file (doc/layout-file.md): degrees,\n"
            "micro-batch, memory choices and per stage its clusters or nodes\n"
            "and layer count; the job comes from --model/--job and the options",
            store(&a.layout));
    t.value("--dp-overlap", "F", "fraction of the DP all-reduce hidden behind backward (default 0.5)",
            number(&a.options.dp_overlap, 0, 1));
    t.value("--virtual-stages", "V", "interleaved 1F1B with V chunks per GPU (default 1, or the plan's)",
            integer(&a.virtual_stages, 1));
    add_sequence_parallel_option(t, &a.sequence_parallel);
    add_flash_attention_option(t, &a.flash_attention);
    t.value("--format", "FMT", "text (default) or json", one_of(&a.format, {"text", "json"}));
    if (!t.parse_or_help(args, 1, std::cout)) return false;
    if (a.topology.empty()) usage_error("--topology", "is required");
    if (!a.plan.empty() && !a.layout.empty()) usage_error("--layout", "give --plan or --layout, not both");
    if ((!a.plan.empty() || !a.layout.empty()) && (a.tp > 0 || a.pp > 0 || a.dp > 0))
        usage_error(a.tp > 0 ? "--tp" : a.pp > 0 ? "--pp" : "--dp",
                    std::string("the degrees are the ") + (a.plan.empty() ? "layout file's" : "plan's"));
    if (a.plan.empty()) {
        if (a.model.empty() == a.job.empty()) usage_error("--model", "give exactly one of --model and --job");
        if (a.job.empty() && a.global_batch == 0) usage_error("--global-batch", "is required with --model");
    }
    return true;
}

JobSpec job_from_args(const Args& a, const Catalog& catalog) {
    JobSpec job;
    if (!a.job.empty()) {
        job = read_job_spec(a.job, catalog);
    } else {
        const ModelArch* m = catalog.model(a.model);
        if (m == nullptr) usage_error("--model", "unknown model '" + a.model + "'");
        job.model = *m;
        job.gpu_mode = GpuCountMode::best;
    }
    if (a.global_batch > 0) job.global_batch = a.global_batch;
    if (a.seq_len > 0) job.seq_len = a.seq_len;
    if (a.micro_batch > 0) job.micro_batch = a.micro_batch;
    if (!a.precision.empty()) job.precision = precision_from_string(a.precision);
    if (a.zero1) job.zero1 = true;
    job.validate();
    return job;
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

void print_text(const Plan& plan, const Prediction& p, const std::vector<cost::StageMemory>& mem,
                const Topology& topo, std::ostream& out) {
    const auto line = [&out](const std::string& label, const std::string& value) {
        out << "  " << label << std::string(label.size() < 26 ? 26 - label.size() : 1, ' ') << value << "\n";
    };
    out << "job:    " << plan.job.model.name << ", " << plan.job.global_batch << " x " << plan.job.seq_len
        << " tokens, " << to_string(plan.job.precision)
        << (plan.job.recomputes() ? std::string(", recompute (") + to_string(plan.job.recompute) + ")" : "")
        << (plan.job.sequence_parallel && plan.tp > 1 ? ", sequence parallel" : "")
        << (plan.job.flash_attention ? ", FlashAttention" : "") << (plan.job.zero1 ? ", ZeRO-1" : "") << "\n";
    out << "layout: tp=" << plan.tp << " pp=" << plan.pp << " dp=" << plan.dp << " (" << plan.world_size()
        << " GPUs), micro-batch " << plan.micro_batch << " x " << plan.num_micro_batches << " per replica, "
        << (plan.virtual_stages > 1 ? "interleaved x" + std::to_string(plan.virtual_stages) + ", " : "")
        << (plan.hierarchical_dp ? "hierarchical" : "flat") << " DP, on " << topo.name << "\n";
    out << "iteration time\n";
    line("total", fixed(p.iteration_s, 3) + " s");
    line("compute", fixed(p.compute_s, 3) + " s");
    line("tp all-reduce", fixed(p.tp_comm_s, 3) + " s");
    line("pp send/recv", fixed(p.pp_comm_s, 3) + " s");
    line("dp all-reduce (exposed)", fixed(p.dp_comm_s, 3) + " s");
    line("pipeline bubble", fixed(p.bubble_s, 3) + " s");
    line("optimizer step", fixed(p.optimizer_s, 3) + " s");
    out << "throughput\n";
    line("tokens/s", fixed(p.tokens_per_s, 0));
    line("MFU", fixed(100 * p.mfu, 1) + " %");
    if (p.scaling_efficiency > 0) line("scaling efficiency", fixed(100 * p.scaling_efficiency, 1) + " %");
    if (plan.job.sync.diloco()) {
        const SyncSpec& s = plan.job.sync;
        out << "DiLoCo outer step, every " << s.inner_steps << " inner steps (" << to_string(s.outer_precision)
            << " pseudo-gradients, " << (s.streaming ? "streaming" : "blocking") << ")\n";
        line("all-reduce", fixed(p.outer_allreduce_s, 3) + " s");
        line("exposed", fixed(p.outer_exposed_s, 3) + " s");
        line("WAN bytes", fixed(p.outer_wan_bytes / 1e9, 3) + " GB");
        line("compute utilisation", fixed(100 * p.compute_utilisation, 1) + " %");
        out << "  (total is one inner step with the exposed outer step spread over the inner steps)\n";
    }
    out << "memory per GPU (weights + gradients + optimizer + activations)\n";
    for (size_t s = 0; s < mem.size(); ++s) {
        const auto& m = mem[s];
        line("stage " + std::to_string(s) + " (" + std::to_string(plan.layers_per_stage[s]) + " layers)",
             fixed(m.total() / units::kGiB, 1) + " GiB = " + fixed(m.weights / units::kGiB, 1) + " + " +
                 fixed(m.gradients / units::kGiB, 1) + " + " + fixed(m.optimizer / units::kGiB, 1) + " + " +
                 fixed(m.activations / units::kGiB, 1));
    }
    out << (p.feasible ? "fits: yes\n" : "fits: NO: " + p.infeasible_reason + "\n");
}

void print_json(const Plan& plan, const Prediction& p, const std::vector<cost::StageMemory>& mem, std::ostream& out) {
    nlohmann::json j;
    j["model"] = plan.job.model.name;
    j["tp"] = plan.tp;
    j["pp"] = plan.pp;
    j["dp"] = plan.dp;
    j["micro_batch"] = plan.micro_batch;
    j["num_micro_batches"] = plan.num_micro_batches;
    j["virtual_stages"] = plan.virtual_stages;
    j["recompute"] = to_string(plan.job.recompute);
    j["sequence_parallel"] = plan.job.sequence_parallel;
    j["flash_attention"] = plan.job.flash_attention;
    j["zero1"] = plan.job.zero1;
    j["feasible"] = p.feasible;
    if (!p.feasible) j["infeasible_reason"] = p.infeasible_reason;
    j["iteration_s"] = p.iteration_s;
    j["breakdown_s"] = {{"compute", p.compute_s}, {"tp_comm", p.tp_comm_s}, {"pp_comm", p.pp_comm_s},
                        {"dp_comm_exposed", p.dp_comm_s}, {"bubble", p.bubble_s}, {"optimizer", p.optimizer_s}};
    j["tokens_per_s"] = p.tokens_per_s;
    j["mfu"] = p.mfu;
    j["scaling_efficiency"] = p.scaling_efficiency;
    j["max_memory_bytes"] = p.max_memory_bytes;
    if (plan.job.sync.diloco()) {
        j["sync"] = {{"mode", "diloco"},
                     {"inner_steps", plan.job.sync.inner_steps},
                     {"outer_precision", to_string(plan.job.sync.outer_precision)},
                     {"streaming", plan.job.sync.streaming}};
        j["outer_step"] = {{"allreduce_s", p.outer_allreduce_s},
                           {"exposed_s", p.outer_exposed_s},
                           {"wan_bytes", p.outer_wan_bytes},
                           {"compute_utilisation", p.compute_utilisation}};
    }
    nlohmann::json stages = nlohmann::json::array();
    for (size_t s = 0; s < mem.size(); ++s) {
        stages.push_back({{"stage", s},
                          {"layers", plan.layers_per_stage[s]},
                          {"total_bytes", mem[s].total()},
                          {"weights_bytes", mem[s].weights},
                          {"gradients_bytes", mem[s].gradients},
                          {"optimizer_bytes", mem[s].optimizer},
                          {"activations_bytes", mem[s].activations}});
    }
    j["memory_per_gpu"] = stages;
    out << j.dump(2) << "\n";
}

int run_estimate(const std::vector<std::string>& args) {
    Args a;
    if (!parse_args(args, a)) return kExitOk;
    const Catalog catalog = a.catalog.empty() ? Catalog::builtin() : Catalog::with_file(a.catalog);
    const Topology topo = read_topology(a.topology, a.reader);
    Plan plan;
    if (!a.plan.empty()) {
        std::string text;
        if (!read_whole_file(a.plan, text)) throw InputError(a.plan, 0, "", "cannot read file");
        plan = plan_from_json(text, a.plan, &topo);
    } else if (!a.layout.empty()) {
        std::string text;
        if (!read_whole_file(a.layout, text)) throw InputError(a.layout, 0, "", "cannot read file");
        plan = plan_from_layout(text, a.layout, topo, job_from_args(a, catalog));
    } else {
        plan = make_sequential_plan(topo, job_from_args(a, catalog), std::max(a.tp, 1), std::max(a.pp, 1),
                                    std::max(a.dp, 1), a.micro_batch);
    }
    if (a.flat_dp) plan.hierarchical_dp = false;
    if (a.virtual_stages) plan.virtual_stages = *a.virtual_stages;
    // A plan file states every memory choice; an option given here overrides the plan's or the job's.
    if (a.recompute) plan.job.recompute = *a.recompute;
    if (a.sequence_parallel) plan.job.sequence_parallel = *a.sequence_parallel;
    if (a.flash_attention) plan.job.flash_attention = *a.flash_attention;
    // One layout, one mode: "either" is for `spiderflow plan`, which plans both.
    if (a.sync.sync == "either") usage_error("--sync", "estimate prices one mode: sync or diloco (plan takes either)");
    apply_sync_options(a.sync, plan.job, OptionNames{}, "spiderflow estimate");
    const CostModel model(topo, catalog, a.options);
    const Prediction p = model.estimate(plan);
    std::vector<cost::StageMemory> mem;
    if (static_cast<int>(plan.layers_per_stage.size()) == plan.pp) {
        for (int s = 0; s < plan.pp; ++s) {
            mem.push_back(cost::stage_memory(plan, s));
        }
    }
    if (a.format == "json") {
        print_json(plan, p, mem, std::cout);
    } else {
        print_text(plan, p, mem, topo, std::cout);
    }
    return p.feasible ? kExitOk : kExitFindings;
}

const Registration reg{"estimate", "predict iteration time, memory and MFU of a job on a layout", &run_estimate};

}  // namespace
}  // namespace spiderflow::cli
