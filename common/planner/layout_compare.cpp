#include "common/planner/layout_compare.h"

#include <cmath>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/topology/topology.h"
#include "common/util/human_format.h"

namespace spiderflow {
namespace {

// Where the layout runs: its clusters in the order its cells first reach them.
std::vector<std::string> clusters_of(const Plan& plan, const Topology& topology) {
    std::vector<std::string> out;
    for (const StageCell& c : plan.cells) {
        if (c.cluster < 0 || c.cluster >= static_cast<int>(topology.clusters.size())) continue;
        const std::string& name = topology.clusters[static_cast<size_t>(c.cluster)].name;
        bool seen = false;
        for (const std::string& n : out) seen = seen || n == name;
        if (!seen) out.push_back(name);
    }
    return out;
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

std::string shape(const Plan& p, const Topology& topology) {
    std::string s = "tp " + std::to_string(p.tp) + " pp " + std::to_string(p.pp) + " dp " + std::to_string(p.dp) +
                    ", micro-batch " + std::to_string(p.micro_batch);
    if (p.virtual_stages > 1) s += ", interleaved x" + std::to_string(p.virtual_stages);
    s += std::string(", recompute ") + to_string(p.job.recompute);
    if (p.job.sequence_parallel && p.tp > 1) s += ", sequence parallel";
    return s + ", " + std::to_string(p.world_size()) + " GPUs in " + joined(clusters_of(p, topology));
}

std::string figures(const Prediction& p) {
    return format_number("%.3f", p.iteration_s) + " s per iteration, MFU " + format_number("%.1f%%", 100 * p.mfu);
}

}  // namespace

LayoutComparison compare_with_layout(const Plan& chosen, Plan given, const CostModel& cost, const std::string& source) {
    LayoutComparison c;
    c.source = source;
    given.prediction = cost.estimate(given);
    if (given.prediction.feasible && given.prediction.iteration_s > 0 && chosen.prediction.iteration_s > 0) {
        c.speedup = given.prediction.iteration_s / chosen.prediction.iteration_s;
        c.mfu_gain = chosen.prediction.mfu - given.prediction.mfu;
    }
    c.given = std::move(given);
    return c;
}

std::string layout_comparison_text(const LayoutComparison& c, const Plan& chosen, const Topology& topology) {
    std::string o = "Compared with " + c.source + " (" + shape(c.given, topology) + "):\n";
    if (!c.given.prediction.feasible) return o + "  it does not fit: " + c.given.prediction.infeasible_reason + "\n";
    o += "  given layout: " + figures(c.given.prediction) + "\n";
    o += "  this plan:    " + figures(chosen.prediction) + "\n";
    const std::string points = format_number("%+.1f", 100 * c.mfu_gain) + " MFU points";
    if (c.speedup > 1.001) return o + "  this plan is " + format_number("%.2f", c.speedup) + "x faster (" + points + ")\n";
    if (c.speedup < 0.999 && c.speedup > 0)
        return o + "  the given layout is " + format_number("%.2f", 1 / c.speedup) + "x faster (" + points + ")\n";
    return o + "  the two are as fast as each other\n";
}

std::string layout_comparison_json(const LayoutComparison& c, const Topology& topology) {
    const auto num = [](double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); };
    const Plan& g = c.given;
    nlohmann::ordered_json j;
    j["file"] = c.source;
    j["tp"] = g.tp;
    j["pp"] = g.pp;
    j["dp"] = g.dp;
    j["micro_batch"] = g.micro_batch;
    j["virtual_stages"] = g.virtual_stages;
    j["recompute"] = to_string(g.job.recompute);
    j["sequence_parallel"] = g.job.sequence_parallel;
    j["gpus"] = g.world_size();
    j["clusters"] = clusters_of(g, topology);
    j["layers_per_stage"] = g.layers_per_stage;
    j["feasible"] = g.prediction.feasible;
    if (!g.prediction.feasible) {
        j["infeasible_reason"] = g.prediction.infeasible_reason;
        return j.dump(2);
    }
    j["iteration_s"] = num(g.prediction.iteration_s);
    j["tokens_per_s"] = num(g.prediction.tokens_per_s);
    j["mfu"] = num(g.prediction.mfu);
    // The plan over the given layout: speedup > 1 and mfu_gain > 0 when the plan is better.
    j["speedup"] = num(c.speedup);
    j["mfu_gain"] = num(c.mfu_gain);
    return j.dump(2);
}

}  // namespace spiderflow
