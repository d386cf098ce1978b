// The layout file reader (doc/layout-file.md). The plan's own rules (plan_problem) judge what
// it builds; this file adds only what a hand-written layout can get wrong before there is a
// plan: names, free GPUs, and which of the file's keys a problem belongs to.
#include "common/plan/layout_file.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/plan/layer_split.h"
#include "common/plan/plan_json.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"
#include "common/util/parse_number.h"

namespace spiderflow {
namespace {

using jsonread::Object;

constexpr int kIntMax = std::numeric_limits<int>::max();

struct NodeRef {
    int cluster = -1;
    int node = -1;
};

// "node" anywhere in the topology, or "cluster/node" where two clusters have a node of that name.
NodeRef find_node(const std::string& name, const Topology& topo, const Object& stage, const char* key) {
    const size_t slash = name.find('/');
    if (slash != std::string::npos) {
        const std::string cname = name.substr(0, slash), nname = name.substr(slash + 1);
        const int c = topo.cluster_index(cname);
        if (c < 0) stage.fail_at(key, "no cluster '" + cname + "' in topology '" + topo.name + "'");
        const int n = topo.clusters[static_cast<size_t>(c)].node_index(nname);
        if (n < 0) stage.fail_at(key, "no node '" + nname + "' in cluster '" + cname + "'");
        return {c, n};
    }
    NodeRef found;
    for (size_t c = 0; c < topo.clusters.size(); ++c) {
        const int n = topo.clusters[c].node_index(name);
        if (n < 0) continue;
        if (found.cluster >= 0)
            stage.fail_at(key, "node '" + name + "' is in clusters '" + topo.clusters[static_cast<size_t>(found.cluster)].name +
                                   "' and '" + topo.clusters[c].name + "': write CLUSTER/" + name);
        found = {static_cast<int>(c), n};
    }
    if (found.cluster < 0) stage.fail_at(key, "no node '" + name + "' in topology '" + topo.name + "'");
    return found;
}

// The nodes a stage may use, in the order its cells take them.
std::vector<NodeRef> stage_nodes(const Object& stage, const Topology& topo) {
    if (stage.has("clusters") == stage.has("nodes")) stage.fail("give exactly one of \"clusters\" and \"nodes\"");
    const char* key = stage.has("clusters") ? "clusters" : "nodes";
    const std::vector<std::string> names = stage.strings(key);
    if (names.empty()) stage.fail_at(key, "must name at least one");
    std::vector<NodeRef> out;
    std::set<std::pair<int, int>> listed;
    for (const std::string& name : names) {
        if (stage.has("nodes")) {
            const NodeRef r = find_node(name, topo, stage, key);
            if (!listed.insert({r.cluster, r.node}).second) stage.fail_at(key, "lists node '" + name + "' twice");
            out.push_back(r);
            continue;
        }
        const int c = topo.cluster_index(name);
        if (c < 0) stage.fail_at(key, "no cluster '" + name + "' in topology '" + topo.name + "'");
        if (!listed.insert({c, -1}).second) stage.fail_at(key, "lists cluster '" + name + "' twice");
        for (const int n : topo.clusters[static_cast<size_t>(c)].node_order()) out.push_back({c, n});
    }
    return out;
}

const Node& node_of(const Topology& topo, const NodeRef& r) {
    return topo.clusters[static_cast<size_t>(r.cluster)].nodes[static_cast<size_t>(r.node)];
}

// Places the stage's dp cells on the first free tp-wide groups of its nodes, marking them used.
void place_stage(const Object& stage, int s, const Topology& topo, Plan& plan,
                 std::set<std::tuple<int, int, int>>& used) {
    const std::vector<NodeRef> nodes = stage_nodes(stage, topo);
    const char* key = stage.has("clusters") ? "clusters" : "nodes";
    int widest = 0;
    for (const NodeRef& r : nodes) widest = std::max(widest, node_of(topo, r).gpus);
    // Tensor parallelism never leaves a node: the degree, not the stage's list, is what is wrong.
    if (plan.tp > widest)
        throw InputError(stage.source(), 0, "tp",
                         "tp " + std::to_string(plan.tp) + " is wider than every node of stage " + std::to_string(s) +
                             " (at most " + std::to_string(widest) + " GPUs): tensor parallelism stays inside a node");
    int placed = 0;
    for (const NodeRef& r : nodes) {
        // The same groups as the sequential layout: tp wider than an NVLink domain still fits a node.
        for (const int g : tp_group_first_gpus(node_of(topo, r), plan.tp, TpAlign::node)) {
            if (placed == plan.dp) return;
            if (!used.insert({r.cluster, r.node, g}).second) continue;
            plan.cell(s, placed++) = StageCell{r.cluster, r.node, g};
        }
    }
    if (placed < plan.dp)
        stage.fail_at(key, "has room for " + std::to_string(placed) + " of the stage's dp = " + std::to_string(plan.dp) +
                               " groups of tp = " + std::to_string(plan.tp) +
                               " GPUs on one node (GPUs of earlier stages are taken)");
}

// A plan_problem's field ("layers_per_stage[2]", "cells[5].first_gpu") as the layout file's key.
std::string layout_field(const std::string& plan_field, const Plan& plan) {
    const auto starts = [&plan_field](const std::string& p) { return plan_field.rfind(p, 0) == 0; };
    if (starts("degrees.num_micro_batches")) return "micro_batch";
    if (starts("degrees.pp")) return "stages";
    if (starts("degrees.")) return plan_field.substr(8);
    if (starts("layers_per_stage[")) {
        const size_t close = plan_field.find(']');
        return "stages[" + plan_field.substr(17, close - 17) + "].layers";
    }
    if (starts("cells[")) {
        const size_t close = plan_field.find(']');
        if (const auto cell = to_int<int>(std::string_view(plan_field).substr(6, close - 6), 0))
            return "stages[" + std::to_string(*cell / plan.dp) + "]";
    }
    return "stages";  // layers_per_stage, cells: both are the stages list
}

void read_memory_choices(const Object& j, JobSpec& job) {
    if (j.has("recompute")) {
        job.recompute = recompute_from_string(j.string("recompute"), j.source(), "recompute");
        job.recompute_stated = true;
    }
    if (j.has("sequence_parallel")) {
        job.sequence_parallel = j.boolean("sequence_parallel");
        job.sequence_parallel_stated = true;
    }
    job.flash_attention = j.boolean_or("flash_attention", job.flash_attention);
    if (j.has("zero1")) {
        job.zero1 = j.boolean("zero1");
        job.zero1_stated = true;
    }
}

std::string schema_of(const nlohmann::json& doc) {
    if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string()) return {};
    return doc["schema"].get<std::string>();
}

}  // namespace

Plan plan_from_layout(const std::string& text, const std::string& source, const Topology& topology, const JobSpec& job) {
    const nlohmann::json doc = jsonread::parse(text, source);
    const Object j(doc, source, "");
    if (j.string("schema") != kLayoutSchemaName)
        j.fail_at("schema", std::string("expected \"") + kLayoutSchemaName + "\"");
    const int version = j.integer("version", 0, kIntMax);
    if (version != kLayoutSchemaVersion)
        j.fail_at("version", "layout file version " + std::to_string(version) + " is not supported (this build reads " +
                                 std::to_string(kLayoutSchemaVersion) + ")");
    j.only({"schema", "version", "comment", "tp", "pp", "dp", "micro_batch", "virtual_stages", "recompute",
            "sequence_parallel", "flash_attention", "zero1", "hierarchical_dp", "stages"});
    j.string_or("comment", "");

    Plan plan;
    plan.job = job;
    plan.policy = "layout";
    read_memory_choices(j, plan.job);
    plan.tp = j.integer("tp", 1, 1024);
    plan.dp = j.integer("dp", 1, 10000000);
    const std::vector<Object> stages = j.objects("stages", {"clusters", "nodes", "layers"});
    if (stages.empty()) j.fail_at("stages", "must list at least one pipeline stage");
    plan.pp = static_cast<int>(stages.size());
    if (j.has("pp") && j.integer("pp", 1, kIntMax) != plan.pp)
        j.fail_at("pp", "is " + std::to_string(j.integer("pp", 1, kIntMax)) + " but \"stages\" lists " +
                            std::to_string(plan.pp));
    plan.micro_batch = j.integer_or("micro_batch", job.micro_batch > 0 ? job.micro_batch : 1, 1, kIntMax);
    plan.job.micro_batch = plan.micro_batch;
    const long long per_step = static_cast<long long>(plan.micro_batch) * plan.dp;
    if (job.global_batch % per_step != 0)
        j.fail_at(j.has("micro_batch") ? "micro_batch" : "dp",
                  "the job's global batch " + std::to_string(job.global_batch) +
                      " is not divisible by micro_batch * dp = " + std::to_string(plan.micro_batch) + " * " +
                      std::to_string(plan.dp));
    plan.num_micro_batches = static_cast<int>(job.global_batch / per_step);
    plan.virtual_stages = j.integer_or("virtual_stages", 1, 1, kIntMax);
    plan.hierarchical_dp = j.boolean_or("hierarchical_dp", true);

    // Layer counts on every stage or on none (then Megatron-LM's even split, as the sequential layout).
    size_t with_layers = 0;
    for (const Object& s : stages) with_layers += s.has("layers") ? 1 : 0;
    if (with_layers == 0) {
        if (plan.pp > plan.job.model.layers)
            j.fail_at("stages", "lists " + std::to_string(plan.pp) + " stages for the model's " +
                                    std::to_string(plan.job.model.layers) + " layers");
        plan.layers_per_stage = megatron_even_split(plan.job.model.layers, plan.pp);
    } else {
        for (const Object& s : stages) {
            if (!s.has("layers")) s.fail_at("layers", "missing (give every stage's layer count, or none)");
            plan.layers_per_stage.push_back(s.integer("layers", 1, kIntMax));
        }
    }

    plan.cells.assign(static_cast<size_t>(plan.pp) * static_cast<size_t>(plan.dp), StageCell{});
    std::set<std::tuple<int, int, int>> used;
    for (size_t s = 0; s < stages.size(); ++s) place_stage(stages[s], static_cast<int>(s), topology, plan, used);

    const PlanProblem problem = plan_problem(plan, &topology);
    if (!problem.empty()) {
        const std::string whose = problem.field == "layers_per_stage" ? "\"layers\" " : "";
        throw InputError(source, 0, layout_field(problem.field, plan), whose + problem.what);
    }
    // A layout the user runs is one Megatron-LM runs: interleaving has its rules.
    const std::string interleave = virtual_stages_problem(plan, plan.virtual_stages);
    if (!interleave.empty()) j.fail_at("virtual_stages", interleave);
    return plan;
}

Plan plan_from_layout_or_plan(const std::string& text, const std::string& source, const Topology& topology,
                              const JobSpec& job) {
    const std::string schema = schema_of(jsonread::parse(text, source));
    if (schema != "spiderflow-plan") return plan_from_layout(text, source, topology, job);
    Plan plan = plan_from_json(text, source, &topology);
    const auto differs = [&](const char* field, long long theirs, long long ours) {
        if (theirs != ours)
            throw InputError(source, 0, std::string("job.") + field,
                             "is " + std::to_string(theirs) + " but the job compared with has " + std::to_string(ours) +
                                 ": compare layouts of one job");
    };
    if (plan.job.model.name != job.model.name)
        throw InputError(source, 0, "job.model.name",
                         "is '" + plan.job.model.name + "' but the job compared with trains '" + job.model.name +
                             "': compare layouts of one job");
    differs("global_batch", plan.job.global_batch, job.global_batch);
    differs("seq_len", plan.job.seq_len, job.seq_len);
    return plan;
}

}  // namespace spiderflow
