#include "common/plan/plan.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "common/topology/topology.h"
#include "common/util/errors.h"

namespace spiderflow {

namespace {

std::string cell_name(const Plan& plan, size_t i) {
    return "cell (stage " + std::to_string(i / static_cast<size_t>(plan.dp)) + ", replica " +
           std::to_string(i % static_cast<size_t>(plan.dp)) + ")";
}

std::string cell_field(size_t i, const char* key) {
    return "cells[" + std::to_string(i) + "]" + (key ? std::string(".") + key : std::string());
}

// Cell placement against the topology; the structure (pp * dp cells, dp >= 1) is already checked.
PlanProblem placement_problem(const Plan& plan, const Topology* topology) {
    const int T = plan.tp;
    for (size_t i = 0; i < plan.cells.size(); ++i) {
        const StageCell& c = plan.cells[i];
        // Built only on failure: the planners run this for every candidate they score.
        auto gpus = [&] {
            return "GPUs " + std::to_string(c.first_gpu) + ".." + std::to_string(c.first_gpu + T - 1) + " of " +
                   cell_name(plan, i) + " do not exist";
        };
        if (c.cluster < 0 || (topology && c.cluster >= static_cast<int>(topology->clusters.size())))
            return {cell_field(i, "cluster_index"), cell_name(plan, i) + " names cluster " + std::to_string(c.cluster) +
                                                        ": no such cluster"};
        if (!topology) {
            if (c.node < 0)
                return {cell_field(i, "node_index"),
                        cell_name(plan, i) + " names node " + std::to_string(c.node) + ": no such node"};
            if (c.first_gpu < 0) return {cell_field(i, "first_gpu"), gpus()};
            continue;
        }
        const Cluster& cl = topology->clusters[static_cast<size_t>(c.cluster)];
        if (c.node < 0 || c.node >= static_cast<int>(cl.nodes.size()))
            return {cell_field(i, "node_index"), cell_name(plan, i) + " names node " + std::to_string(c.node) +
                                                     ": no such node in " + cl.name};
        const Node& node = cl.nodes[static_cast<size_t>(c.node)];
        if (c.first_gpu < 0 || c.first_gpu + T > node.gpus)
            return {cell_field(i, "first_gpu"),
                    gpus() + " on " + cl.name + "/" + node.name + " (" + std::to_string(node.gpus) + " GPUs)"};
    }
    if (!topology) return {};

    // Two cells on the same GPUs would double-book them. Every cell is tp wide, so sorted by
    // position only neighbours can overlap.
    std::vector<size_t> order(plan.cells.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto at = [&plan](size_t i) {
        const StageCell& c = plan.cells[i];
        return std::tie(c.cluster, c.node, c.first_gpu);
    };
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return std::make_pair(at(x), x) < std::make_pair(at(y), y); });
    for (size_t k = 1; k < order.size(); ++k) {
        const StageCell& x = plan.cells[order[k - 1]];
        const StageCell& y = plan.cells[order[k]];
        if (x.cluster != y.cluster || x.node != y.node || x.first_gpu + T <= y.first_gpu) continue;
        const Cluster& cl = topology->clusters[static_cast<size_t>(y.cluster)];
        const size_t later = std::max(order[k - 1], order[k]), earlier = std::min(order[k - 1], order[k]);
        return {cell_field(later, nullptr), "GPU " + std::to_string(y.first_gpu) + " of " + cl.name + "/" +
                                                cl.nodes[static_cast<size_t>(y.node)].name +
                                                " is used by two cells: " + cell_name(plan, earlier) + " and " +
                                                cell_name(plan, later)};
    }
    return {};
}

}  // namespace

std::string virtual_stages_problem(const Plan& plan, int v) {
    if (v < 1) return "must be >= 1 (is " + std::to_string(v) + ")";
    if (v == 1) return "";
    const std::string what = std::to_string(v) + " virtual stages";
    if (plan.pp < 2) return what + " need a pipeline (pp >= 2, is " + std::to_string(plan.pp) + ")";
    const std::vector<int>& l = plan.layers_per_stage;
    for (int n : l) {
        if (n != l.front())
            return what + " need the layers split evenly over the stages (Megatron's interleaved split)";
    }
    if (!l.empty() && l.front() % v != 0)
        return what + " do not divide a stage's " + std::to_string(l.front()) + " layers";
    if (plan.num_micro_batches % plan.pp != 0)
        return what + " need the micro-batches per replica (" + std::to_string(plan.num_micro_batches) +
               ") to be a multiple of pp (" + std::to_string(plan.pp) + ")";
    return "";
}

PlanProblem plan_problem(const Plan& plan, const Topology* topology) {
    const std::pair<const char*, int> positive[] = {{"degrees.tp", plan.tp},
                                                    {"degrees.pp", plan.pp},
                                                    {"degrees.dp", plan.dp},
                                                    {"degrees.micro_batch", plan.micro_batch},
                                                    {"degrees.num_micro_batches", plan.num_micro_batches}};
    for (const auto& [field, value] : positive)
        if (value < 1) return {field, "must be >= 1 (is " + std::to_string(value) + ")"};

    if (plan.layers_per_stage.size() != static_cast<size_t>(plan.pp))
        return {"layers_per_stage", "has " + std::to_string(plan.layers_per_stage.size()) +
                                        " entries, expected pp = " + std::to_string(plan.pp)};
    long long layer_sum = 0;
    for (size_t s = 0; s < plan.layers_per_stage.size(); ++s) {
        const int l = plan.layers_per_stage[s];
        if (l < 1) return {"layers_per_stage[" + std::to_string(s) + "]", "must be >= 1 (is " + std::to_string(l) + ")"};
        layer_sum += l;
    }
    if (layer_sum != plan.job.model.layers)
        return {"layers_per_stage", "sums to " + std::to_string(layer_sum) + " but the model has " +
                                        std::to_string(plan.job.model.layers) + " layers"};

    if (plan.virtual_stages < 1)
        return {"degrees.virtual_stages", "must be >= 1 (is " + std::to_string(plan.virtual_stages) + ")"};

    const size_t want = static_cast<size_t>(plan.pp) * static_cast<size_t>(plan.dp);
    if (plan.cells.size() != want)
        return {"cells", "has " + std::to_string(plan.cells.size()) + " entries, expected pp * dp = " +
                             std::to_string(want)};
    return placement_problem(plan, topology);
}

void Plan::validate(const Topology* topology, const std::string& source) const {
    const PlanProblem p = plan_problem(*this, topology);
    if (!p.empty()) throw InputError(source, 0, p.field, p.what);
}

int Plan::first_layer_of_stage(int stage) const {
    int first = 0;
    for (int s = 0; s < stage && s < static_cast<int>(layers_per_stage.size()); ++s) first += layers_per_stage[s];
    return first;
}

ParallelCoords coords_of_rank(int rank, int tp, int pp, int dp) {
    ParallelCoords c;
    if (tp <= 0 || pp <= 0 || dp <= 0) return c;
    c.tp = rank % tp;
    c.dp = (rank / tp) % dp;
    c.pp = rank / (tp * dp);
    return c;
}

std::vector<RankPlacement> Plan::ranks() const {
    std::vector<RankPlacement> out;
    out.reserve(static_cast<size_t>(world_size()));
    for (int rank = 0; rank < world_size(); ++rank) {
        const ParallelCoords k = coords_of_rank(rank, tp, pp, dp);
        const StageCell& c = cell(k.pp, k.dp);
        RankPlacement p;
        p.rank = rank;
        p.cluster = c.cluster;
        p.node = c.node;
        p.gpu = c.first_gpu + k.tp;
        p.tp = k.tp;
        p.pp = k.pp;
        p.dp = k.dp;
        p.first_layer = first_layer_of_stage(k.pp);
        p.num_layers = k.pp < static_cast<int>(layers_per_stage.size()) ? layers_per_stage[static_cast<size_t>(k.pp)] : 0;
        out.push_back(p);
    }
    return out;
}

}  // namespace spiderflow
