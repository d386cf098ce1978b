// `spiderflow plan`: plans one job on a topology and prints the plan as JSON, text or SVG.
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/model/job_spec.h"
#include "common/plan/layout_file.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_svg.h"
#include "common/plan/plan_text.h"
#include "common/planner/layout_compare.h"
#include "common/planner/plan_compare.h"
#include "common/planner/plan_job.h"
#include "common/planner/planner.h"
#include "common/planner/request_builder.h"
#include "common/planner/sync_compare.h"
#include "common/site/site_json.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "common/util/split_list.h"
#include "common/util/text_file.h"
#include "common/util/cli_options.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/cost_flags.h"
#include "tools/spiderflow/federation_view.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kUsage =
    "usage: spiderflow plan --topology FILE (--model NAME | --job FILE) --global-batch N --seq-len S\n"
    "                       --gpus N [options]\n\n"
    "Chooses clusters, nodes and GPUs, the parallel degrees and the layer split for one training\n"
    "job, and predicts its iteration time with the shared cost model.\n\n";

constexpr const char* kFooter =
    "\nExit status: 0 planned, 2 bad input or impossible request (the message says which\n"
    "constraint failed and what would fit).\n";

[[noreturn]] void usage_error(const std::string& field, const std::string& what) {
    throw InputError("spiderflow plan", 0, field, what);
}

// --allow and --forbid: cluster names between commas.
Handler cluster_list(std::vector<std::string>* dest) {
    return [dest](const std::string& v) {
        *dest = split_list(v);
        if (dest->empty()) throw BadValue("needs a comma-separated list of cluster names");
    };
}

// The plan JSON with `key` ("sync_comparison", "compared_with") added last; the plan reader
// knows those keys and ignores their content.
std::string with_member(const std::string& plan_json, const char* key, const std::string& member_json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(plan_json);
    j[key] = nlohmann::ordered_json::parse(member_json);
    return j.dump(2);
}

// --compare-with FILE: the layout in FILE (a layout file or a plan JSON) for the planned job,
// priced by the plan's cost model.
LayoutComparison compare_with_file(const std::string& file, const Plan& chosen, const JobSpec& job,
                                   const Topology& topology, const CostModel& cost) {
    std::string text;
    if (!read_whole_file(file, text)) throw InputError(file, 0, "", "cannot read file");
    return compare_with_layout(chosen, plan_from_layout_or_plan(text, file, topology, job), cost, file);
}

int run_plan(const std::vector<std::string>& args) {
    std::string topology_file, reader, job_file, catalog_file, format = "json", output;
    std::string state_file, broker_url, token_file, ca_file, compare_with;
    SiteTime at = 0;
    bool timing = true;
    bool compare = true;
    RequestOptions options;
    CostOptions cost_options;
    OptionTable t("spiderflow plan", kUsage, kFooter, 23);
    t.value("--topology", "FILE", "federation topology (spiderflow JSON, slurm.conf or hwloc XML)", store(&topology_file));
    t.value("--reader", "NAME", "topology reader (default: from the file name)", store(&reader));
    t.value("--model", "NAME", "model from the built-in catalog (e.g. llama3-70b)", store(&options.model));
    t.value("--job", "FILE",
            "job spec JSON; the options below override its values\n"
            "(its \"recompute\" and \"sequence_parallel\" decide those; without\n"
            "them the planner weighs none, selective and full recomputation and\n"
            "turns sequence parallelism on wherever tp > 1)",
            store(&job_file));
    t.value("--catalog", "FILE", "extra GPU/model catalog JSON on top of the built-in one", store(&catalog_file));
    t.value("--state", "FILE", "site state snapshot (doc/site-state.md): plan on the GPUs free in it", store(&state_file));
    t.value("--at", "T", "with --state: on the GPUs free at time T (default 0, the snapshot's now)",
            integer<SiteTime>(&at, 0));
    t.value("--broker", "URL",
            "plan on what is free now in the live federation (doc/broker-api.md);\n"
            "its topology replaces --topology",
            store(&broker_url));
    t.value("--token-file", "FILE", "with --broker: a token, in a file only you can read", store(&token_file));
    t.value("--ca", "FILE", "with --broker: the CA certificate that signs the broker's", store(&ca_file));
    t.value("--global-batch", "N", "sequences per iteration", integer(&options.global_batch, 1));
    t.value("--seq-len", "S", "tokens per sequence", integer(&options.seq_len, 1));
    t.value("--gpus", "N", "GPUs wanted", integer(&options.gpus, 1));
    t.value("--gpus-mode", "MODE", "exact (default), at-most or best", [&](const std::string& v) {
        options.gpu_mode = gpu_count_mode_from_string(v, "spiderflow plan", "--gpus-mode");
    });
    t.value("--objective", "OBJ",
            "time (shortest iteration, default) or throughput (per GPU); also\n"
            "iteration_time / throughput_per_gpu, as sbatch --llm-objective spells them",
            store(&options.objective));
    t.value("--allow", "C1,C2", "only these clusters", cluster_list(&options.allowed_clusters));
    t.value("--forbid", "C3,...", "never these clusters", cluster_list(&options.forbidden_clusters));
    t.value("--tp", "T", "", integer(&options.tp, 1));
    t.value("--pp", "P", "", integer(&options.pp, 1));
    t.value("--dp", "D", "", integer(&options.dp, 1));
    t.line("--tp T --pp P --dp D", "fix parallel degrees (only the placement is searched)");
    t.value("--micro-batch", "M", "fix the micro-batch size", integer(&options.micro_batch, 1));
    t.value("--precision", "P", "bf16 (default), fp16 or fp32, as `spiderflow estimate` takes it", store(&options.precision));
    add_recompute_option(t, &options.recompute);
    t.optional_value("--zero1", "yes|no",
                     "the distributed optimizer (ZeRO-1, Megatron's --use-distributed-optimizer):\n"
                     "optimizer states sharded across data parallelism (default: on whenever\n"
                     "the plan has more than one replica; --zero1 alone means yes)",
                     [&](const std::string& v) {
                         if (v != "" && v != "yes" && v != "no") throw BadValue("must be yes or no, not '" + v + "'");
                         options.zero1 = v != "no";
                     });
    add_sequence_parallel_option(t, &options.sequence_parallel);
    add_flash_attention_option(t, &options.flash_attention);
    t.value("--sync", "MODE",
            "sync (default): every step all-reduces gradients over all replicas;\n"
            "diloco: each site trains its own replica and the sites average\n"
            "pseudo-gradients every --inner-steps steps (a different optimiser:\n"
            "loss per token differs); either: plan both, show the trade, keep sync",
            store(&options.sync));
    t.value("--inner-steps", "H", "DiLoCo: inner steps between outer steps (default 100)", integer(&options.inner_steps, 1));
    t.value("--outer-precision", "P", "DiLoCo: pseudo-gradients on the wire as fp32 (default), bf16 or int8",
            store(&options.outer_precision));
    t.flag("--streaming", "DiLoCo: overlap the outer all-reduce with the next inner steps",
           [&](const std::string&) { options.streaming = true; });
    t.value("--policy", "NAME", "spinsearch (default), global-ilp, genetic, greedy, first-fit, exhaustive", store(&options.policy));
    t.value("--time-limit", "S", "planning time limit in seconds (default: the policy's)",
            number(&options.time_limit_s, 0.001, 1e7));
    t.value("--seed", "N", "random seed (default 1); same inputs and seed give the same plan",
            [&](const std::string& v) { options.seed = static_cast<uint64_t>(int_value<int>(v, 0)); });
    t.value("--format", "FMT", "json (default), text or svg", one_of(&format, {"json", "text", "svg"}));
    t.value("-o", "FILE", "write to FILE instead of standard output", store(&output));
    t.value("--output", "FILE", "", store(&output));
    t.flag("--no-timing", "leave the planning time out, so the same inputs print the same bytes", set(&timing, false));
    t.value("--compare-with", "FILE",
            "price the layout in FILE (a layout file, doc/layout-file.md, or a\n"
            "plan JSON) for the same job with the same cost model, and say what\n"
            "the plan gains over it (text; json: \"compared_with\")",
            store(&compare_with));
    t.flag("--no-compare",
           "text: leave out the comparison with the best plan in one site and the\n"
           "best plan on fewer GPUs (each is planned too, which takes longer)",
           set(&compare, false));
    if (!t.parse_or_help(args, 1, std::cout)) return kExitOk;
    if (topology_file.empty() && broker_url.empty()) usage_error("--topology", "is required (or --broker)");
    if (!broker_url.empty() && (!topology_file.empty() || !state_file.empty())) {
        usage_error("--broker", "takes the topology and state from the broker: drop --topology and --state");
    }
    if (options.model.empty() == job_file.empty()) usage_error("--model", "give exactly one of --model and --job");
    if (!compare_with.empty() && format == "svg") usage_error("--compare-with", "shows in --format text or json");

    const Catalog catalog = catalog_file.empty() ? Catalog::builtin() : Catalog::with_file(catalog_file);
    if (!job_file.empty()) options.job = read_job_spec(job_file, catalog);
    const PlanRequest request = build_plan_request(options, catalog, OptionNames{}, "spiderflow plan");
    const auto planner = checked_planner(options.policy, "spinsearch", OptionNames{}, "spiderflow plan");

    // With a site state, only what is free counts: busy, reserved, drained and down GPUs are
    // gone from the topology the planner sees (nodes keep their places, so names and indices agree).
    Topology topology;
    if (!broker_url.empty()) {
        try {
            const FederationView fed = fetch_federation(BrokerClient(broker_endpoint(broker_url, token_file, ca_file)));
            topology = fed.state->free_view(at > 0 ? at : static_cast<SiteTime>(std::time(nullptr)));
        } catch (const BrokerError& e) {
            usage_error("--broker", e.what());
        }
    } else {
        auto full = std::make_shared<const Topology>(read_topology(topology_file, reader));
        topology = state_file.empty() ? *full : read_site_state(state_file, full).free_view(at);
    }
    const CostModel cost(topology, catalog, cost_options);
    PlanResult result = plan_job(*planner, request, cost);
    if (!timing) {
        result.plan.planning_ms = 0;
        if (result.runner_up) result.runner_up->planning_ms = 0;
    }
    if (!result.note.empty()) std::cerr << "spiderflow: " << result.note << "\n";

    // --sync either: DiLoCo planned too and shown beside the plan, which stays synchronous.
    std::optional<SyncComparison> modes;
    if (request.compare_sync_modes && format != "svg") modes = compare_sync_modes(*planner, request, cost, result.plan);

    // The given layout is read only now, against the topology the plan was made on, for the
    // request's job (its stated memory choices too, where the layout file leaves them out).
    std::optional<LayoutComparison> given;
    if (!compare_with.empty()) given = compare_with_file(compare_with, result.plan, request.job, topology, cost);

    std::string text;
    if (format == "json") {
        text = plan_to_json(result.plan, topology);
        if (modes) text = with_member(text, "sync_comparison", sync_comparison_json(*modes));
        if (given) text = with_member(text, "compared_with", layout_comparison_json(*given, topology));
        text += "\n";
    } else if (format == "text") {
        text = plan_to_text(result.plan, topology, result.runner_up ? &*result.runner_up : nullptr, result.note);
        if (modes) text += sync_comparison_text(*modes);
        if (given) text += layout_comparison_text(*given, result.plan, topology);
        // What else the user could ask for, and whether this request pays.
        if (compare) text += comparison_text(compare_plan(*planner, request, cost, result.plan), result.plan);
    }
    else text = plan_to_svg(result.plan, topology);

    if (output.empty()) {
        std::cout << text;
    } else {
        std::ofstream out(output);
        if (!out || !(out << text)) usage_error("-o", "cannot write '" + output + "'");
    }
    return kExitOk;
}

const Registration reg{"plan", "plan a job: placement, parallel degrees, predicted iteration time", &run_plan};

}  // namespace
}  // namespace spiderflow::cli
