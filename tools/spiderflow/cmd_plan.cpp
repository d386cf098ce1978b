// `spiderflow plan`: plans one job on a topology and prints the plan as JSON, text or SVG.
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "libspiderflow/cost/cost_model.h"
#include "libspiderflow/model/catalog.h"
#include "libspiderflow/model/job_spec.h"
#include "libspiderflow/plan/plan_json.h"
#include "libspiderflow/plan/plan_svg.h"
#include "libspiderflow/plan/plan_text.h"
#include "libspiderflow/planner/plan_compare.h"
#include "libspiderflow/planner/plan_job.h"
#include "libspiderflow/planner/planner.h"
#include "libspiderflow/planner/request_builder.h"
#include "libspiderflow/planner/sync_compare.h"
#include "libspiderflow/site/site_json.h"
#include "libspiderflow/topology/reader.h"
#include "libspiderflow/util/errors.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/cost_flags.h"
#include "tools/spiderflow/federation_view.h"

namespace spiderflow::cli {
namespace {

std::string help_text() {
    return std::string() +
    "usage: spiderflow plan --topology FILE (--model NAME | --job FILE) --global-batch N --seq-len S\n"
    "                       --gpus N [options]\n\n"
    "Chooses clusters, nodes and GPUs, the parallel degrees and the layer split for one training\n"
    "job, and predicts its iteration time with the shared cost model.\n\n"
    "  --topology FILE      federation topology (spiderflow JSON, slurm.conf or hwloc XML)\n"
    "  --reader NAME        topology reader (default: from the file name)\n"
    "  --model NAME         model from the built-in catalog (e.g. llama3-70b)\n"
    "  --job FILE           job spec JSON; the options below override its values\n"
    "                       (its \"recompute\" decides activation recomputation; without it,\n"
    "                       recompute is turned on only when no layout fits memory otherwise)\n"
    "  --catalog FILE       extra GPU/model catalog JSON on top of the built-in one\n"
    "  --state FILE         site state snapshot (doc/site-state.md): plan on the GPUs free in it\n"
    "  --at T               with --state: on the GPUs free at time T (default 0, the snapshot's now)\n"
    "  --broker URL         plan on what is free now in the live federation (doc/broker-api.md);\n"
    "                       its topology replaces --topology\n"
    "  --token-file FILE    with --broker: a token, in a file only you can read\n"
    "  --ca FILE            with --broker: the CA certificate that signs the broker's\n"
    "  --global-batch N     sequences per iteration\n"
    "  --seq-len S          tokens per sequence\n"
    "  --gpus N             GPUs wanted\n"
    "  --gpus-mode MODE     exact (default), at-most or best\n"
    "  --objective OBJ      time (shortest iteration, default) or throughput (per GPU); also\n"
    "                       iteration_time / throughput_per_gpu, as sbatch --llm-objective spells them\n"
    "  --allow C1,C2        only these clusters\n"
    "  --forbid C3,...      never these clusters\n"
    "  --tp T --pp P --dp D fix parallel degrees (only the placement is searched)\n"
    "  --micro-batch M      fix the micro-batch size\n"
    "  --precision P        bf16 (default), fp16 or fp32, as `spiderflow estimate` takes it\n"
    + recompute_help(23) + sequence_parallel_help(23) +
    "  --sync MODE          sync (default): every step all-reduces gradients over all replicas;\n"
    "                       diloco: each site trains its own replica and the sites average\n"
    "                       pseudo-gradients every --inner-steps steps (a different optimiser:\n"
    "                       loss per token differs); either: plan both, show the trade, keep sync\n"
    "  --inner-steps H      DiLoCo: inner steps between outer steps (default 100)\n"
    "  --outer-precision P  DiLoCo: pseudo-gradients on the wire as fp32 (default), bf16 or int8\n"
    "  --streaming          DiLoCo: overlap the outer all-reduce with the next inner steps\n"
    "  --policy NAME        spinsearch (default), global-ilp, genetic, greedy, first-fit, exhaustive\n"
    "  --time-limit S       planning time limit in seconds (default: the policy's)\n"
    "  --seed N             random seed (default 1); same inputs and seed give the same plan\n"
    "  --format FMT         json (default), text or svg\n"
    "  -o FILE              write to FILE instead of standard output\n"
    "  --no-timing          leave the planning time out, so the same inputs print the same bytes\n"
    "  --no-compare         text: leave out the comparison with the best plan in one site and the\n"
    "                       best plan on fewer GPUs (each is planned too, which takes longer)\n\n"
    "Exit status: 0 planned, 2 bad input or impossible request (the message says which\n"
    "constraint failed and what would fit).\n";
}

[[noreturn]] void usage_error(const std::string& field, const std::string& what) {
    throw InputError("spiderflow plan", 0, field, what);
}

long long parse_int(const std::string& opt, const std::string& s, long long min_value) {
    try {
        size_t used = 0;
        const long long v = std::stoll(s, &used);
        if (used == s.size() && v >= min_value && v <= 2147483647LL) return v;
    } catch (const std::exception&) {
    }
    usage_error(opt, "needs an integer >= " + std::to_string(min_value) + ", not '" + s + "'");
}

double parse_seconds(const std::string& opt, const std::string& s) {
    try {
        size_t used = 0;
        const double v = std::stod(s, &used);
        if (used == s.size() && v > 0 && v < 1e7) return v;
    } catch (const std::exception&) {
    }
    usage_error(opt, "needs a positive number of seconds, not '" + s + "'");
}

std::vector<std::string> split_list(const std::string& opt, const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) out.push_back(item);
    if (out.empty()) usage_error(opt, "needs a comma-separated list of cluster names");
    return out;
}

// The plan JSON with "sync_comparison" added last; the plan reader knows the key and ignores its content.
std::string with_sync_comparison(const std::string& plan_json, const std::string& comparison_json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(plan_json);
    j["sync_comparison"] = nlohmann::ordered_json::parse(comparison_json);
    return j.dump(2);
}

int run_plan(const std::vector<std::string>& args) {
    std::string topology_file, reader, job_file, catalog_file, format = "json", output;
    std::string policy, state_file, broker_url, token_file, ca_file;
    SiteTime at = 0;
    bool timing = true;
    bool compare = true;
    RequestOptions options;
    CostOptions cost_options;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::cout << help_text();
            return kExitOk;
        }
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) usage_error(a, "needs a value");
            return args[++i];
        };
        if (a == "--topology") topology_file = value();
        else if (a == "--reader") reader = value();
        else if (a == "--model") options.model = value();
        else if (a == "--job") job_file = value();
        else if (a == "--catalog") catalog_file = value();
        else if (a == "--state") state_file = value();
        else if (a == "--broker") broker_url = value();
        else if (a == "--token-file") token_file = value();
        else if (a == "--ca") ca_file = value();
        else if (a == "--at") at = static_cast<SiteTime>(parse_int(a, value(), 0));
        else if (a == "--global-batch") options.global_batch = static_cast<int>(parse_int(a, value(), 1));
        else if (a == "--seq-len") options.seq_len = static_cast<int>(parse_int(a, value(), 1));
        else if (a == "--gpus") options.gpus = static_cast<int>(parse_int(a, value(), 1));
        else if (a == "--gpus-mode") options.gpu_mode = gpu_count_mode_from_string(value(), "spiderflow plan", a);
        else if (a == "--objective") options.objective = value();
        else if (a == "--allow") options.allowed_clusters = split_list(a, value());
        else if (a == "--forbid") options.forbidden_clusters = split_list(a, value());
        else if (a == "--tp") options.tp = static_cast<int>(parse_int(a, value(), 1));
        else if (a == "--pp") options.pp = static_cast<int>(parse_int(a, value(), 1));
        else if (a == "--dp") options.dp = static_cast<int>(parse_int(a, value(), 1));
        else if (a == "--micro-batch") options.micro_batch = static_cast<int>(parse_int(a, value(), 1));
        else if (a == "--precision") options.precision = value();
        else if (auto r = parse_recompute_flag(a, "spiderflow plan")) {
            options.recompute = r->recompute;
            cost_options.recompute_granularity = r->granularity;
        } else if (a == "--sequence-parallel") cost_options.sequence_parallel = true;
        else if (a == "--sync") options.sync = value();
        else if (a == "--inner-steps") options.inner_steps = static_cast<int>(parse_int(a, value(), 1));
        else if (a == "--outer-precision") options.outer_precision = value();
        else if (a == "--streaming") options.streaming = true;
        else if (a == "--policy") policy = value();
        else if (a == "--time-limit") options.time_limit_s = parse_seconds(a, value());
        else if (a == "--seed") options.seed = static_cast<uint64_t>(parse_int(a, value(), 0));
        else if (a == "--format") {
            format = value();
            if (format != "json" && format != "text" && format != "svg")
                usage_error(a, "must be json, text or svg, not '" + format + "'");
        } else if (a == "-o" || a == "--output") output = value();
        else if (a == "--no-timing") timing = false;
        else if (a == "--no-compare") compare = false;
        else usage_error(a, "unknown option (see 'spiderflow plan --help')");
    }
    if (topology_file.empty() && broker_url.empty()) usage_error("--topology", "is required (or --broker)");
    if (!broker_url.empty() && (!topology_file.empty() || !state_file.empty())) {
        usage_error("--broker", "takes the topology and state from the broker: drop --topology and --state");
    }
    if (options.model.empty() == job_file.empty()) usage_error("--model", "give exactly one of --model and --job");

    const Catalog catalog = catalog_file.empty() ? Catalog::builtin() : Catalog::with_file(catalog_file);
    if (!job_file.empty()) options.job = read_job_spec(job_file, catalog);
    const PlanRequest request = build_plan_request(options, catalog, OptionNames{}, "spiderflow plan");
    policy = checked_policy_name(policy, "spinsearch", OptionNames{}, "spiderflow plan");

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
    const auto planner = make_planner(policy);
    PlanResult result = plan_job(*planner, request, cost);
    if (!timing) {
        result.plan.planning_ms = 0;
        if (result.runner_up) result.runner_up->planning_ms = 0;
    }
    if (!result.note.empty()) std::cerr << "spiderflow: " << result.note << "\n";

    // --sync either: DiLoCo planned too and shown beside the plan, which stays synchronous.
    std::optional<SyncComparison> modes;
    if (request.compare_sync_modes && format != "svg") modes = compare_sync_modes(*planner, request, cost, result.plan);

    std::string text;
    if (format == "json") {
        text = plan_to_json(result.plan, topology);
        if (modes) text = with_sync_comparison(text, sync_comparison_json(*modes));
        text += "\n";
    } else if (format == "text") {
        text = plan_to_text(result.plan, topology, result.runner_up ? &*result.runner_up : nullptr, result.note);
        if (modes) text += sync_comparison_text(*modes);
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
