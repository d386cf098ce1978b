// Plan <-> versioned JSON. The schema is documented in doc/plan-schema.md; every change to the
// layout of this file's output bumps Plan::kSchemaVersion.
#include "common/plan/plan_json.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/model/model_json.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"

namespace spiderflow {
namespace {

using jsonread::item;
using jsonread::Object;
using nlohmann::json;
using nlohmann::ordered_json;

constexpr const char* kSchemaName = "spiderflow-plan";

const char* precision_name(Precision p) {
    switch (p) {
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp32: return "fp32";
    }
    return "bf16";
}

// Non-finite doubles have no JSON form; write null so the reader reports them, never "inf".
ordered_json num(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

std::string cluster_name(const Topology& t, int c) {
    return c >= 0 && c < static_cast<int>(t.clusters.size()) ? t.clusters[c].name : std::string();
}

std::string node_name(const Topology& t, int c, int n) {
    if (c < 0 || c >= static_cast<int>(t.clusters.size())) return {};
    const auto& nodes = t.clusters[c].nodes;
    return n >= 0 && n < static_cast<int>(nodes.size()) ? nodes[n].name : std::string();
}

}  // namespace

std::string plan_to_json(const Plan& plan, const Topology& topology, int indent) {
    ordered_json j;
    j["schema"] = kSchemaName;
    j["version"] = Plan::kSchemaVersion;
    j["topology"] = topology.name;
    j["policy"] = plan.policy;
    j["planning_ms"] = num(plan.planning_ms);

    ordered_json job;
    job["model"] = model_arch_to_json(plan.job.model);
    job["seq_len"] = plan.job.seq_len;
    job["global_batch"] = plan.job.global_batch;
    job["micro_batch"] = plan.job.micro_batch;
    job["precision"] = precision_name(plan.job.precision);
    job["recompute"] = to_string(plan.job.recompute);
    // Megatron-LM's method and unit for full recomputation: what the cost model prices.
    if (plan.job.recompute == Recompute::full) {
        job["recompute_method"] = "uniform";
        job["recompute_num_layers"] = 1;
    }
    job["sequence_parallel"] = plan.job.sequence_parallel;
    job["flash_attention"] = plan.job.flash_attention;
    job["zero1"] = plan.job.zero1;
    job["gpus"] = plan.job.gpus;
    job["gpu_mode"] = to_string(plan.job.gpu_mode);
    // Written only for DiLoCo, so synchronous plans keep the bytes they always had.
    if (plan.job.sync.diloco()) {
        ordered_json sync;
        sync["mode"] = to_string(plan.job.sync.mode);
        sync["inner_steps"] = plan.job.sync.inner_steps;
        sync["outer_precision"] = to_string(plan.job.sync.outer_precision);
        sync["streaming"] = plan.job.sync.streaming;
        job["sync"] = sync;
    }
    j["job"] = job;

    ordered_json deg;
    deg["tp"] = plan.tp;
    deg["pp"] = plan.pp;
    deg["dp"] = plan.dp;
    deg["world_size"] = plan.world_size();
    deg["micro_batch"] = plan.micro_batch;
    deg["num_micro_batches"] = plan.num_micro_batches;
    if (plan.virtual_stages > 1) deg["virtual_stages"] = plan.virtual_stages;  // absent: plain 1F1B
    j["degrees"] = deg;
    j["hierarchical_dp"] = plan.hierarchical_dp;
    j["layers_per_stage"] = plan.layers_per_stage;

    ordered_json cells = ordered_json::array();
    for (int s = 0; s < plan.pp; ++s) {
        for (int r = 0; r < plan.dp; ++r) {
            const size_t i = static_cast<size_t>(s) * plan.dp + r;
            if (i >= plan.cells.size()) break;
            const StageCell& c = plan.cells[i];
            ordered_json cj;
            cj["stage"] = s;
            cj["replica"] = r;
            cj["cluster"] = cluster_name(topology, c.cluster);
            cj["cluster_index"] = c.cluster;
            cj["node"] = node_name(topology, c.cluster, c.node);
            cj["node_index"] = c.node;
            cj["first_gpu"] = c.first_gpu;
            cells.push_back(cj);
        }
    }
    j["cells"] = cells;

    ordered_json ranks = ordered_json::array();
    if (plan.cells.size() == static_cast<size_t>(plan.pp) * plan.dp) {
        for (const RankPlacement& r : plan.ranks()) {
            ordered_json rj;
            rj["rank"] = r.rank;
            rj["cluster"] = cluster_name(topology, r.cluster);
            rj["node"] = node_name(topology, r.cluster, r.node);
            rj["cluster_index"] = r.cluster;
            rj["node_index"] = r.node;
            rj["gpu"] = r.gpu;
            rj["tp"] = r.tp;
            rj["pp"] = r.pp;
            rj["dp"] = r.dp;
            rj["first_layer"] = r.first_layer;
            rj["num_layers"] = r.num_layers;
            ranks.push_back(rj);
        }
    }
    j["ranks"] = ranks;

    const Prediction& p = plan.prediction;
    ordered_json pj;
    pj["feasible"] = p.feasible;
    if (!p.feasible) pj["infeasible_reason"] = p.infeasible_reason;
    pj["iteration_s"] = num(p.iteration_s);
    ordered_json br;
    br["compute_s"] = num(p.compute_s);
    br["tp_comm_s"] = num(p.tp_comm_s);
    br["pp_comm_s"] = num(p.pp_comm_s);
    br["dp_comm_s"] = num(p.dp_comm_s);
    br["bubble_s"] = num(p.bubble_s);
    br["optimizer_s"] = num(p.optimizer_s);
    pj["breakdown"] = br;
    pj["tokens_per_s"] = num(p.tokens_per_s);
    pj["mfu"] = num(p.mfu);
    pj["scaling_efficiency"] = num(p.scaling_efficiency);
    ordered_json mem;
    mem["max_per_gpu_bytes"] = num(p.max_memory_bytes);
    ordered_json per_stage = ordered_json::array();
    for (double b : p.stage_memory_bytes) per_stage.push_back(num(b));
    mem["per_stage_per_gpu_bytes"] = per_stage;
    pj["memory"] = mem;
    if (plan.job.sync.diloco()) {
        ordered_json outer;
        outer["allreduce_s"] = num(p.outer_allreduce_s);
        outer["exposed_s"] = num(p.outer_exposed_s);
        outer["wan_bytes"] = num(p.outer_wan_bytes);
        outer["compute_utilisation"] = num(p.compute_utilisation);
        pj["outer_step"] = outer;
    }
    j["prediction"] = pj;

    return j.dump(indent);
}

namespace {

constexpr int kIntMax = std::numeric_limits<int>::max();

ModelArch read_model(const Object& j) {
    j.only({"name", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "experts", "experts_per_token",
            "gated_ffn", "tied_embeddings"});
    ModelArch m;
    m.name = j.string("name");
    m.layers = j.integer("layers", 1, kIntMax);
    m.hidden = j.integer("hidden", 1, kIntMax);
    m.heads = j.integer("heads", 1, kIntMax);
    m.kv_heads = j.integer("kv_heads", 1, kIntMax);
    m.ffn_hidden = j.integer("ffn_hidden", 1, kIntMax);
    m.vocab = j.integer("vocab", 1, kIntMax);
    m.experts = j.integer("experts", 0, kIntMax);
    m.experts_per_token = j.integer("experts_per_token", 0, kIntMax);
    m.gated_ffn = j.boolean("gated_ffn");
    m.tied_embeddings = j.boolean("tied_embeddings");
    return m;
}

JobSpec read_job(const Object& j) {
    j.only({"model", "seq_len", "global_batch", "micro_batch", "precision", "recompute", "recompute_method",
            "recompute_num_layers", "sequence_parallel", "flash_attention", "zero1", "gpus", "gpu_mode", "sync"});
    JobSpec job;
    job.model = read_model(j.object("model"));
    job.seq_len = j.integer("seq_len", 1, kIntMax);
    job.global_batch = j.integer("global_batch", 1, kIntMax);
    job.micro_batch = j.integer("micro_batch", 0, kIntMax);
    const std::string prec = j.string("precision");
    if (prec == "bf16") job.precision = Precision::bf16;
    else if (prec == "fp16") job.precision = Precision::fp16;
    else if (prec == "fp32") job.precision = Precision::fp32;
    else j.fail_at("precision", "unknown precision '" + prec + "' (bf16, fp16, fp32)");
    // A plan records every choice as made: nothing is left open for a planner. Version 1 plans
    // said recompute as true (full) or false and had no sequence parallelism or FlashAttention.
    try {
        job.recompute = recompute_from_json(j.at("recompute"), "plan", "recompute");
    } catch (const InputError& e) {
        j.fail_at("recompute", e.problem());
    }
    job.recompute_stated = true;
    if (j.has("recompute_method") && j.string("recompute_method") != "uniform")
        j.fail_at("recompute_method", "only \"uniform\" is priced (Megatron-LM's --recompute-method uniform)");
    if (j.has("recompute_num_layers")) j.integer("recompute_num_layers", 1, 1);
    if ((j.has("recompute_method") || j.has("recompute_num_layers")) && job.recompute != Recompute::full)
        j.fail_at("recompute_method", "goes with \"recompute\": \"full\" only");
    job.sequence_parallel = j.boolean_or("sequence_parallel", false);
    job.sequence_parallel_stated = true;
    job.flash_attention = j.boolean_or("flash_attention", false);
    job.zero1 = j.boolean("zero1");
    job.zero1_stated = true;
    job.gpus = j.integer("gpus", 0, kIntMax);
    const std::string mode = j.string("gpu_mode");
    try {
        job.gpu_mode = gpu_count_mode_from_string(mode, "plan", "gpu_mode");
    } catch (const InputError& e) {
        j.fail_at("gpu_mode", e.problem());
    }
    if (j.has("sync")) {
        const Object sj = j.object("sync", {"mode", "inner_steps", "outer_precision", "streaming"});
        const std::string sync_mode = sj.string("mode");
        const std::string outer = sj.string("outer_precision");
        try {
            job.sync.mode = sync_mode_from_string(sync_mode, "plan", "mode");
        } catch (const InputError& e) {
            sj.fail_at("mode", e.problem());
        }
        try {
            job.sync.outer_precision = outer_precision_from_string(outer, "plan", "outer_precision");
        } catch (const InputError& e) {
            sj.fail_at("outer_precision", e.problem());
        }
        job.sync.inner_steps = sj.integer("inner_steps", 1, kIntMax);
        job.sync.streaming = sj.boolean("streaming");
    }
    return job;
}

Prediction read_prediction(const Object& j) {
    j.only({"feasible", "infeasible_reason", "iteration_s", "breakdown", "tokens_per_s", "mfu", "scaling_efficiency",
            "memory", "outer_step"});
    Prediction p;
    p.feasible = j.boolean("feasible");
    if (!p.feasible) p.infeasible_reason = j.string("infeasible_reason");
    p.iteration_s = j.number("iteration_s");
    const Object br =
        j.object("breakdown", {"compute_s", "tp_comm_s", "pp_comm_s", "dp_comm_s", "bubble_s", "optimizer_s"});
    p.compute_s = br.number("compute_s");
    p.tp_comm_s = br.number("tp_comm_s");
    p.pp_comm_s = br.number("pp_comm_s");
    p.dp_comm_s = br.number("dp_comm_s");
    p.bubble_s = br.number("bubble_s");
    p.optimizer_s = br.number("optimizer_s");
    p.tokens_per_s = j.number("tokens_per_s");
    p.mfu = j.number("mfu");
    p.scaling_efficiency = j.number("scaling_efficiency");
    const Object mem = j.object("memory", {"max_per_gpu_bytes", "per_stage_per_gpu_bytes"});
    p.max_memory_bytes = mem.number("max_per_gpu_bytes");
    const json& ps = mem.array("per_stage_per_gpu_bytes");
    for (size_t i = 0; i < ps.size(); ++i) {
        p.stage_memory_bytes.push_back(
            jsonread::get_number(ps[i], mem.source(), item(mem.path_of("per_stage_per_gpu_bytes"), i)));
    }
    if (j.has("outer_step")) {
        const Object o = j.object("outer_step", {"allreduce_s", "exposed_s", "wan_bytes", "compute_utilisation"});
        p.outer_allreduce_s = o.number("allreduce_s");
        p.outer_exposed_s = o.number("exposed_s");
        p.outer_wan_bytes = o.number("wan_bytes");
        p.compute_utilisation = o.number("compute_utilisation");
    }
    return p;
}

// Cluster/node of one cell: by name against the topology when given (indices, if written,
// must agree), else by the written indices.
void resolve_cell(const Object& cj, const Topology* topo, StageCell& cell) {
    cell.first_gpu = cj.integer("first_gpu", 0, kIntMax);
    cell.cluster = cj.integer("cluster_index", 0, kIntMax);
    cell.node = cj.integer("node_index", 0, kIntMax);
    if (!topo) return;
    const std::string cname = cj.string("cluster");
    const int c = topo->cluster_index(cname);
    if (c < 0) cj.fail_at("cluster", "no cluster '" + cname + "' in topology '" + topo->name + "'");
    if (c != cell.cluster)
        cj.fail_at("cluster_index", "is " + std::to_string(cell.cluster) + " but cluster '" + cname + "' has index " +
                                        std::to_string(c) + " in the topology");
    const Cluster& cl = topo->clusters[c];
    const std::string nname = cj.string("node");
    const int n = cl.node_index(nname);
    if (n < 0) cj.fail_at("node", "no node '" + nname + "' in cluster '" + cname + "'");
    if (n != cell.node)
        cj.fail_at("node_index", "is " + std::to_string(cell.node) + " but node '" + nname + "' has index " +
                                     std::to_string(n) + " in cluster '" + cname + "'");
}

}  // namespace

Plan plan_from_json(const std::string& text, const std::string& source, const Topology* topology) {
    const json doc = jsonread::parse(text, source);
    const Object j(doc, source, "");
    // Schema and version before the keys, so that a newer plan says "version", not "unknown key".
    if (j.string("schema") != kSchemaName) j.fail_at("schema", std::string("expected \"") + kSchemaName + "\"");
    const int version = j.integer("version", 0, kIntMax);
    if (version < 1 || version > Plan::kSchemaVersion)
        j.fail_at("version", "plan schema version " + std::to_string(version) + " is not supported (this build reads 1 to " +
                                 std::to_string(Plan::kSchemaVersion) + ")");
    // sync_comparison and compared_with are what `spiderflow plan --sync either` and
    // `--compare-with` add for people; taken and ignored.
    j.only({"schema", "version", "topology", "policy", "planning_ms", "job", "degrees", "hierarchical_dp",
            "layers_per_stage", "cells", "ranks", "prediction", "sync_comparison", "compared_with"});

    Plan plan;
    j.string_or("topology", "");
    plan.policy = j.string("policy");
    plan.planning_ms = j.number("planning_ms");
    plan.job = read_job(j.object("job"));

    const Object deg =
        j.object("degrees", {"tp", "pp", "dp", "world_size", "micro_batch", "num_micro_batches", "virtual_stages"});
    plan.tp = deg.integer("tp", 1, kIntMax);
    plan.pp = deg.integer("pp", 1, kIntMax);
    plan.dp = deg.integer("dp", 1, kIntMax);
    plan.micro_batch = deg.integer("micro_batch", 1, kIntMax);
    plan.num_micro_batches = deg.integer("num_micro_batches", 1, kIntMax);
    plan.virtual_stages = deg.integer_or("virtual_stages", 1, 1, kIntMax);
    if (deg.has("world_size") && deg.integer("world_size", 1, kIntMax) != plan.world_size())
        deg.fail_at("world_size", "does not equal tp * pp * dp = " + std::to_string(plan.world_size()));
    plan.hierarchical_dp = j.boolean("hierarchical_dp");

    const json& lps = j.array("layers_per_stage");
    for (size_t i = 0; i < lps.size(); ++i) {
        plan.layers_per_stage.push_back(
            jsonread::get_int(lps[i], source, item("layers_per_stage", i), std::numeric_limits<int>::min(), kIntMax));
    }

    const std::vector<Object> cells = j.objects(
        "cells", {"stage", "replica", "cluster", "cluster_index", "node", "node_index", "first_gpu"});
    const size_t want = static_cast<size_t>(plan.pp) * plan.dp;
    if (cells.size() != want)
        j.fail_at("cells", "has " + std::to_string(cells.size()) + " entries, expected pp * dp = " + std::to_string(want));
    plan.cells.assign(want, StageCell{});
    std::vector<bool> seen(want, false);
    for (const Object& cell : cells) {
        const int s = cell.integer("stage", 0, kIntMax);
        const int r = cell.integer("replica", 0, kIntMax);
        if (s >= plan.pp) cell.fail_at("stage", "must be below pp = " + std::to_string(plan.pp));
        if (r >= plan.dp) cell.fail_at("replica", "must be below dp = " + std::to_string(plan.dp));
        const size_t idx = static_cast<size_t>(s) * plan.dp + r;
        if (seen[idx]) cell.fail("duplicate cell for stage " + std::to_string(s) + ", replica " + std::to_string(r));
        seen[idx] = true;
        resolve_cell(cell, topology, plan.cells[idx]);
    }
    // Layer split, GPU ranges and GPUs shared by two cells: the plan's own rules, the same
    // for a file as for a plan built in memory.
    plan.validate(topology, source);

    // Ranks are derived from the cells; a hand-edited plan whose ranks disagree is refused
    // rather than silently launched with the cells' layout.
    if (j.has("ranks")) {
        const std::vector<Object> ranks = j.objects(
            "ranks", {"rank", "cluster", "node", "cluster_index", "node_index", "gpu", "tp", "pp", "dp", "first_layer",
                      "num_layers"});
        const auto derived = plan.ranks();
        if (ranks.size() != derived.size())
            j.fail_at("ranks", "has " + std::to_string(ranks.size()) + " entries, expected world size " +
                                   std::to_string(derived.size()));
        for (size_t i = 0; i < ranks.size(); ++i) {
            const RankPlacement& d = derived[i];
            const char* names[] = {"rank", "gpu", "tp", "pp", "dp", "cluster_index", "node_index"};
            const int want_vals[] = {d.rank, d.gpu, d.tp, d.pp, d.dp, d.cluster, d.node};
            int vals[7];
            for (int k = 0; k < 7; ++k) vals[k] = ranks[i].integer(names[k], 0, kIntMax);
            for (int k = 0; k < 7; ++k)
                if (vals[k] != want_vals[k])
                    ranks[i].fail_at(names[k], "is " + std::to_string(vals[k]) + " but the cells give " +
                                                   std::to_string(want_vals[k]));
        }
    }

    plan.prediction = read_prediction(j.object("prediction"));
    return plan;
}

}  // namespace spiderflow
