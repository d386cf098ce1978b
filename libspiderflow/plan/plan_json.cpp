// Plan <-> versioned JSON. The schema is documented in doc/plan-schema.md; every change to the
// layout of this file's output bumps Plan::kSchemaVersion.
#include "libspiderflow/plan/plan_json.h"

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "libspiderflow/util/errors.h"
#include "libspiderflow/util/json_read.h"

namespace spiderflow {
namespace {

using jsonread::join;
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

ordered_json model_to_json(const ModelArch& m) {
    ordered_json j;
    j["name"] = m.name;
    j["layers"] = m.layers;
    j["hidden"] = m.hidden;
    j["heads"] = m.heads;
    j["kv_heads"] = m.kv_heads;
    j["ffn_hidden"] = m.ffn_hidden;
    j["vocab"] = m.vocab;
    j["experts"] = m.experts;
    j["experts_per_token"] = m.experts_per_token;
    j["gated_ffn"] = m.gated_ffn;
    j["tied_embeddings"] = m.tied_embeddings;
    return j;
}

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
    job["model"] = model_to_json(plan.job.model);
    job["seq_len"] = plan.job.seq_len;
    job["global_batch"] = plan.job.global_batch;
    job["micro_batch"] = plan.job.micro_batch;
    job["precision"] = precision_name(plan.job.precision);
    job["recompute"] = plan.job.recompute;
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

// Reads fields out of the parsed document; every failure names the JSON path.
class Reader {
public:
    explicit Reader(std::string source) : source_(std::move(source)) {}

    [[noreturn]] void fail(const std::string& field, const std::string& what) const {
        throw InputError(source_, 0, field, what);
    }

    const json& member(const json& obj, const std::string& path, const char* key) const {
        if (!obj.is_object()) fail(path, "expected an object");
        auto it = obj.find(key);
        if (it == obj.end()) fail(join(path, key), "missing");
        return *it;
    }

    int get_int(const json& obj, const std::string& path, const char* key, int min_value) const {
        const json& v = member(obj, path, key);
        const std::string f = join(path, key);
        if (!v.is_number_integer()) fail(f, "expected an integer");
        const auto x = v.get<long long>();
        if (x < min_value || x > 2147483647LL) fail(f, "out of range (" + std::to_string(x) + ")");
        return static_cast<int>(x);
    }

    double get_double(const json& obj, const std::string& path, const char* key, bool required = true) const {
        if (!required && (!obj.is_object() || !obj.contains(key))) return 0;
        const json& v = member(obj, path, key);
        const std::string f = join(path, key);
        if (!v.is_number()) fail(f, "expected a number");
        const double d = v.get<double>();
        if (!std::isfinite(d)) fail(f, "not a finite number");
        return d;
    }

    bool get_bool(const json& obj, const std::string& path, const char* key) const {
        const json& v = member(obj, path, key);
        if (!v.is_boolean()) fail(join(path, key), "expected true or false");
        return v.get<bool>();
    }

    std::string get_string(const json& obj, const std::string& path, const char* key) const {
        const json& v = member(obj, path, key);
        if (!v.is_string()) fail(join(path, key), "expected a string");
        return v.get<std::string>();
    }

    const std::string& source() const { return source_; }

private:
    std::string source_;
};

ModelArch read_model(const Reader& rd, const json& j, const std::string& path) {
    ModelArch m;
    m.name = rd.get_string(j, path, "name");
    m.layers = rd.get_int(j, path, "layers", 1);
    m.hidden = rd.get_int(j, path, "hidden", 1);
    m.heads = rd.get_int(j, path, "heads", 1);
    m.kv_heads = rd.get_int(j, path, "kv_heads", 1);
    m.ffn_hidden = rd.get_int(j, path, "ffn_hidden", 1);
    m.vocab = rd.get_int(j, path, "vocab", 1);
    m.experts = rd.get_int(j, path, "experts", 0);
    m.experts_per_token = rd.get_int(j, path, "experts_per_token", 0);
    m.gated_ffn = rd.get_bool(j, path, "gated_ffn");
    m.tied_embeddings = rd.get_bool(j, path, "tied_embeddings");
    return m;
}

JobSpec read_job(const Reader& rd, const json& j, const std::string& path) {
    JobSpec job;
    job.model = read_model(rd, rd.member(j, path, "model"), join(path, "model"));
    job.seq_len = rd.get_int(j, path, "seq_len", 1);
    job.global_batch = rd.get_int(j, path, "global_batch", 1);
    job.micro_batch = rd.get_int(j, path, "micro_batch", 0);
    const std::string prec = rd.get_string(j, path, "precision");
    if (prec == "bf16") job.precision = Precision::bf16;
    else if (prec == "fp16") job.precision = Precision::fp16;
    else if (prec == "fp32") job.precision = Precision::fp32;
    else rd.fail(join(path, "precision"), "unknown precision '" + prec + "' (bf16, fp16, fp32)");
    job.recompute = rd.get_bool(j, path, "recompute");
    job.zero1 = rd.get_bool(j, path, "zero1");
    job.gpus = rd.get_int(j, path, "gpus", 0);
    const std::string mode = rd.get_string(j, path, "gpu_mode");
    try {
        job.gpu_mode = gpu_count_mode_from_string(mode, "plan", "gpu_mode");
    } catch (const InputError& e) {
        rd.fail(join(path, "gpu_mode"), e.problem());
    }
    if (j.contains("sync")) {
        const json& sj = rd.member(j, path, "sync");
        const std::string sp = join(path, "sync");
        try {
            job.sync.mode = sync_mode_from_string(rd.get_string(sj, sp, "mode"), "plan", "mode");
            job.sync.outer_precision =
                outer_precision_from_string(rd.get_string(sj, sp, "outer_precision"), "plan", "outer_precision");
        } catch (const InputError& e) {
            rd.fail(join(sp, e.field()), e.problem());
        }
        job.sync.inner_steps = rd.get_int(sj, sp, "inner_steps", 1);
        job.sync.streaming = rd.get_bool(sj, sp, "streaming");
    }
    return job;
}

Prediction read_prediction(const Reader& rd, const json& j) {
    const std::string path = "prediction";
    Prediction p;
    p.feasible = rd.get_bool(j, path, "feasible");
    if (!p.feasible) p.infeasible_reason = rd.get_string(j, path, "infeasible_reason");
    p.iteration_s = rd.get_double(j, path, "iteration_s");
    const json& br = rd.member(j, path, "breakdown");
    const std::string bp = "prediction.breakdown";
    p.compute_s = rd.get_double(br, bp, "compute_s");
    p.tp_comm_s = rd.get_double(br, bp, "tp_comm_s");
    p.pp_comm_s = rd.get_double(br, bp, "pp_comm_s");
    p.dp_comm_s = rd.get_double(br, bp, "dp_comm_s");
    p.bubble_s = rd.get_double(br, bp, "bubble_s");
    p.optimizer_s = rd.get_double(br, bp, "optimizer_s");
    p.tokens_per_s = rd.get_double(j, path, "tokens_per_s");
    p.mfu = rd.get_double(j, path, "mfu");
    p.scaling_efficiency = rd.get_double(j, path, "scaling_efficiency");
    const json& mem = rd.member(j, path, "memory");
    p.max_memory_bytes = rd.get_double(mem, "prediction.memory", "max_per_gpu_bytes");
    const json& ps = rd.member(mem, "prediction.memory", "per_stage_per_gpu_bytes");
    if (!ps.is_array()) rd.fail("prediction.memory.per_stage_per_gpu_bytes", "expected an array");
    for (size_t i = 0; i < ps.size(); ++i) {
        const std::string f = "prediction.memory.per_stage_per_gpu_bytes[" + std::to_string(i) + "]";
        if (!ps[i].is_number()) rd.fail(f, "expected a number");
        p.stage_memory_bytes.push_back(ps[i].get<double>());
    }
    if (j.contains("outer_step")) {
        const json& o = rd.member(j, path, "outer_step");
        const std::string op = "prediction.outer_step";
        p.outer_allreduce_s = rd.get_double(o, op, "allreduce_s");
        p.outer_exposed_s = rd.get_double(o, op, "exposed_s");
        p.outer_wan_bytes = rd.get_double(o, op, "wan_bytes");
        p.compute_utilisation = rd.get_double(o, op, "compute_utilisation");
    }
    return p;
}

// Cluster/node of one cell: by name against the topology when given (indices, if written,
// must agree), else by the written indices.
void resolve_cell(const Reader& rd, const json& cj, const std::string& path, const Topology* topo, StageCell& cell) {
    cell.first_gpu = rd.get_int(cj, path, "first_gpu", 0);
    cell.cluster = rd.get_int(cj, path, "cluster_index", 0);
    cell.node = rd.get_int(cj, path, "node_index", 0);
    if (!topo) return;
    const std::string cname = rd.get_string(cj, path, "cluster");
    const int c = topo->cluster_index(cname);
    if (c < 0) rd.fail(path + ".cluster", "no cluster '" + cname + "' in topology '" + topo->name + "'");
    if (c != cell.cluster)
        rd.fail(path + ".cluster_index", "is " + std::to_string(cell.cluster) + " but cluster '" + cname +
                                             "' has index " + std::to_string(c) + " in the topology");
    const Cluster& cl = topo->clusters[c];
    const std::string nname = rd.get_string(cj, path, "node");
    const int n = cl.node_index(nname);
    if (n < 0) rd.fail(path + ".node", "no node '" + nname + "' in cluster '" + cname + "'");
    if (n != cell.node)
        rd.fail(path + ".node_index", "is " + std::to_string(cell.node) + " but node '" + nname + "' has index " +
                                          std::to_string(n) + " in cluster '" + cname + "'");
}

}  // namespace

Plan plan_from_json(const std::string& text, const std::string& source, const Topology* topology) {
    const json j = jsonread::parse(text, source);
    Reader rd(source);
    if (!j.is_object()) rd.fail("", "a plan must be a JSON object");
    if (rd.get_string(j, "", "schema") != kSchemaName)
        rd.fail("schema", std::string("expected \"") + kSchemaName + "\"");
    const int version = rd.get_int(j, "", "version", 0);
    if (version != Plan::kSchemaVersion)
        rd.fail("version", "plan schema version " + std::to_string(version) + " is not supported (this build reads " +
                               std::to_string(Plan::kSchemaVersion) + ")");

    Plan plan;
    plan.policy = rd.get_string(j, "", "policy");
    plan.planning_ms = rd.get_double(j, "", "planning_ms");
    plan.job = read_job(rd, rd.member(j, "", "job"), "job");

    const json& deg = rd.member(j, "", "degrees");
    plan.tp = rd.get_int(deg, "degrees", "tp", 1);
    plan.pp = rd.get_int(deg, "degrees", "pp", 1);
    plan.dp = rd.get_int(deg, "degrees", "dp", 1);
    plan.micro_batch = rd.get_int(deg, "degrees", "micro_batch", 1);
    plan.num_micro_batches = rd.get_int(deg, "degrees", "num_micro_batches", 1);
    if (deg.contains("world_size") && rd.get_int(deg, "degrees", "world_size", 1) != plan.world_size())
        rd.fail("degrees.world_size", "does not equal tp * pp * dp = " + std::to_string(plan.world_size()));
    plan.hierarchical_dp = rd.get_bool(j, "", "hierarchical_dp");

    const json& lps = rd.member(j, "", "layers_per_stage");
    if (!lps.is_array()) rd.fail("layers_per_stage", "expected an array");
    for (size_t i = 0; i < lps.size(); ++i) {
        const std::string f = "layers_per_stage[" + std::to_string(i) + "]";
        if (!lps[i].is_number_integer()) rd.fail(f, "expected an integer");
        const auto x = lps[i].get<long long>();
        if (x < -2147483648LL || x > 2147483647LL) rd.fail(f, "out of range (" + std::to_string(x) + ")");
        plan.layers_per_stage.push_back(static_cast<int>(x));
    }

    const json& cells = rd.member(j, "", "cells");
    if (!cells.is_array()) rd.fail("cells", "expected an array");
    const size_t want = static_cast<size_t>(plan.pp) * plan.dp;
    if (cells.size() != want)
        rd.fail("cells", "has " + std::to_string(cells.size()) + " entries, expected pp * dp = " + std::to_string(want));
    plan.cells.assign(want, StageCell{});
    std::vector<bool> seen(want, false);
    for (size_t i = 0; i < cells.size(); ++i) {
        const std::string path = "cells[" + std::to_string(i) + "]";
        const int s = rd.get_int(cells[i], path, "stage", 0);
        const int r = rd.get_int(cells[i], path, "replica", 0);
        if (s >= plan.pp) rd.fail(path + ".stage", "must be below pp = " + std::to_string(plan.pp));
        if (r >= plan.dp) rd.fail(path + ".replica", "must be below dp = " + std::to_string(plan.dp));
        const size_t idx = static_cast<size_t>(s) * plan.dp + r;
        if (seen[idx]) rd.fail(path, "duplicate cell for stage " + std::to_string(s) + ", replica " + std::to_string(r));
        seen[idx] = true;
        resolve_cell(rd, cells[i], path, topology, plan.cells[idx]);
    }
    // Layer split, GPU ranges and GPUs shared by two cells: the plan's own rules, the same
    // for a file as for a plan built in memory.
    plan.validate(topology, source);

    // Ranks are derived from the cells; a hand-edited plan whose ranks disagree is refused
    // rather than silently launched with the cells' layout.
    if (j.contains("ranks")) {
        const json& ranks = j["ranks"];
        if (!ranks.is_array()) rd.fail("ranks", "expected an array");
        const auto derived = plan.ranks();
        if (ranks.size() != derived.size())
            rd.fail("ranks", "has " + std::to_string(ranks.size()) + " entries, expected world size " +
                                 std::to_string(derived.size()));
        for (size_t i = 0; i < ranks.size(); ++i) {
            const std::string path = "ranks[" + std::to_string(i) + "]";
            const RankPlacement& d = derived[i];
            const int vals[] = {rd.get_int(ranks[i], path, "rank", 0), rd.get_int(ranks[i], path, "gpu", 0),
                                rd.get_int(ranks[i], path, "tp", 0), rd.get_int(ranks[i], path, "pp", 0),
                                rd.get_int(ranks[i], path, "dp", 0), rd.get_int(ranks[i], path, "cluster_index", 0),
                                rd.get_int(ranks[i], path, "node_index", 0)};
            const int want_vals[] = {d.rank, d.gpu, d.tp, d.pp, d.dp, d.cluster, d.node};
            const char* names[] = {"rank", "gpu", "tp", "pp", "dp", "cluster_index", "node_index"};
            for (int k = 0; k < 7; ++k)
                if (vals[k] != want_vals[k])
                    rd.fail(path + "." + names[k], "is " + std::to_string(vals[k]) + " but the cells give " +
                                                       std::to_string(want_vals[k]));
        }
    }

    plan.prediction = read_prediction(rd, rd.member(j, "", "prediction"));
    return plan;
}

}  // namespace spiderflow
