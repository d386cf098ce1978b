#include "common/plan/plan_text.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "common/plan/plan_routes.h"
#include "common/plan/plan_traffic.h"
#include "common/util/human_format.h"
#include "common/util/units.h"

namespace spiderflow {
namespace {

std::string fmt(const char* f, double v) { return format_number(f, v); }
std::string bytes_str(double b) { return format_bytes(b); }

std::string secs(double s) {
    if (s >= 1) return fmt("%.3f s", s);
    return fmt("%.1f ms", s * 1e3);
}

std::string cname(const Topology& t, int c) {
    return c >= 0 && c < static_cast<int>(t.clusters.size()) ? t.clusters[c].name : "#" + std::to_string(c);
}

std::string shape(const Plan& p) {
    return "tp=" + std::to_string(p.tp) + " pp=" + std::to_string(p.pp) + " dp=" + std::to_string(p.dp) +
           " micro-batch=" + std::to_string(p.micro_batch);
}

bool complete(const Plan& p) { return p.cells.size() == static_cast<size_t>(p.pp) * p.dp; }

// Pipelines that leave their cluster, and stages whose replicas span clusters.
std::pair<int, int> crossing_counts(const Plan& p) {
    int pipelines_crossing = 0;
    int stages_spanning = 0;
    if (!complete(p)) return {0, 0};
    for (int r = 0; r < p.dp; ++r) {
        for (int s = 0; s + 1 < p.pp; ++s) {
            if (p.cell(s, r).cluster != p.cell(s + 1, r).cluster) {
                ++pipelines_crossing;
                break;
            }
        }
    }
    for (int s = 0; s < p.pp; ++s)
        if (clusters_of_stage(p, s).size() > 1) ++stages_spanning;
    return {pipelines_crossing, stages_spanning};
}

// Which route a kind of traffic takes, when the pair's widest and fastest routes differ (else the
// pair's line above already names the one route).
std::string route_note(const Topology& t, int a, int b, RouteKind kind) {
    if (t.route(a, b, RouteKind::widest) == t.route(a, b, RouteKind::fastest)) return "";
    const PathInfo& p = t.path(a, b, kind);
    std::string out = std::string(", on the ") + to_string(kind) + " route";
    const std::vector<int> hops = t.route(a, b, kind);
    if (hops.size() <= 2) {
        out += " (direct)";
    } else {
        out += " (via";
        for (size_t i = 1; i + 1 < hops.size(); ++i) out += " " + cname(t, hops[i]);
        out += ")";
    }
    return out + ": " + fmt("%.2f Gbps", units::Bps_to_gbps(p.bandwidth_Bps)) + ", " + fmt("%.1f ms", p.latency_s * 1e3);
}

// The memory choices the plan was priced with, as the launch line carries them.
std::string memory_choices(const JobSpec& job, int tp) {
    std::string out = job.recompute == Recompute::none ? "no activation recomputation"
                                                       : std::string(to_string(job.recompute)) + " activation recomputation";
    if (job.sequence_parallel && tp > 1) out += ", sequence parallelism";
    if (job.zero1) out += ", distributed optimizer";
    if (job.flash_attention) out += ", FlashAttention";
    return out;
}

void breakdown(std::ostringstream& o, const Prediction& q) {
    o << "  compute " << secs(q.compute_s) << ", bubble " << secs(q.bubble_s) << ", TP " << secs(q.tp_comm_s)
      << ", PP " << secs(q.pp_comm_s) << ", DP (exposed) " << secs(q.dp_comm_s) << ", optimizer "
      << secs(q.optimizer_s) << "\n";
}

// DiLoCo's own lines: what the plan trains with, and what its outer step costs.
void outer_step_text(std::ostringstream& o, const Plan& plan) {
    const SyncSpec& sync = plan.job.sync;
    const Prediction& q = plan.prediction;
    if (plan_orientation(plan) == "one cluster") {
        o << "  DiLoCo in one site: no pseudo-gradient crosses a WAN link; the outer optimiser still runs every "
          << sync.inner_steps << " inner steps, so loss per token differs from synchronous training\n";
        return;
    }
    o << "  DiLoCo: each site trains its own replica; every " << sync.inner_steps
      << " inner steps the sites all-reduce " << to_string(sync.outer_precision) << " pseudo-gradients ("
      << (sync.streaming ? "streaming, behind the next inner steps" : "blocking") << "): "
      << bytes_str(q.outer_wan_bytes) << " over the WAN, " << secs(q.outer_allreduce_s) << ", of which "
      << secs(q.outer_exposed_s) << " exposed; compute utilisation " << fmt("%.1f%%", q.compute_utilisation * 100)
      << "\n";
    o << "  (the iteration above is one inner step with that exposed time spread over the "
      << sync.inner_steps << "; the optimiser differs from synchronous training, so loss per token does too)\n";
}

}  // namespace

std::string plan_orientation(const Plan& p) {
    if (!complete(p)) return "incomplete";
    std::vector<int> all;
    for (const auto& c : p.cells) all.push_back(c.cluster);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    if (all.size() <= 1) return "one cluster";
    const auto [pipes, stages] = crossing_counts(p);
    if (pipes == 0) return "pipelines inside clusters, DP across";
    if (stages == 0) return "pipelines across clusters, DP inside";
    return "mixed";
}

std::string plan_to_text(const Plan& plan, const Topology& topo, const Plan* runner_up, const std::string& note) {
    std::ostringstream o;
    const Prediction& q = plan.prediction;
    o << "Plan for " << plan.job.model.name << " (" << plan.job.model.layers << " layers), global batch "
      << plan.job.global_batch << " x " << plan.job.seq_len << " tokens, on " << plan.world_size() << " GPUs\n";
    // A plan without a planning time (spiderflow plan --no-timing, for diffable output) says none.
    o << "policy " << (plan.policy.empty() ? "?" : plan.policy);
    if (plan.planning_ms > 0) o << ", planned in " << fmt("%.1f", plan.planning_ms) << " ms";
    o << "\n";
    if (!note.empty()) o << "note: " << note << "\n";
    if (plan.job.sync.diloco())
        o << "Training: DiLoCo (H=" << plan.job.sync.inner_steps << ", " << to_string(plan.job.sync.outer_precision)
          << " pseudo-gradients" << (plan.job.sync.streaming ? ", streaming" : "") << ")\n";
    o << "\nLayout: " << shape(plan) << ", " << plan.num_micro_batches << " micro-batches per replica; "
      << plan_orientation(plan) << "\n";
    if (plan.virtual_stages > 1)
        o << "Schedule: interleaved 1F1B, " << plan.virtual_stages << " model chunks per GPU (a bubble "
          << plan.virtual_stages << "x smaller for " << plan.virtual_stages << "x the pipeline messages)\n";
    o << "Memory: " << memory_choices(plan.job, plan.tp) << "\n";

    // GPUs per cluster.
    std::map<int, int> gpus;
    for (const auto& c : plan.cells) gpus[c.cluster] += plan.tp;
    o << "Clusters:";
    for (const auto& [c, n] : gpus) o << " " << cname(topo, c) << " (" << n << " GPUs)";
    o << "\n";
    if (complete(plan)) {
        o << "Stages:\n";
        for (int s = 0; s < plan.pp; ++s) {
            o << "  stage " << s << ": layers " << plan.first_layer_of_stage(s) << ".."
              << plan.first_layer_of_stage(s) + (s < static_cast<int>(plan.layers_per_stage.size())
                                                     ? plan.layers_per_stage[s]
                                                     : 0) -
                     1
              << " on";
            std::map<int, int> per;
            for (int r = 0; r < plan.dp; ++r) per[plan.cell(s, r).cluster] += 1;
            for (const auto& [c, n] : per) o << " " << cname(topo, c) << " x" << n;
            o << "\n";
        }
    }

    o << "\nPredicted iteration " << secs(q.iteration_s);
    if (!q.feasible) o << " (INFEASIBLE: " << q.infeasible_reason << ")";
    o << ", " << fmt("%.0f", q.tokens_per_s) << " tokens/s, MFU " << fmt("%.1f%%", q.mfu * 100);
    if (q.scaling_efficiency > 0) o << ", scaling efficiency " << fmt("%.1f%%", q.scaling_efficiency * 100) << " vs one site";
    o << "\n";
    breakdown(o, q);
    if (plan.job.sync.diloco()) outer_step_text(o, plan);
    o << "  memory: fullest GPU " << fmt("%.1f GiB", q.max_memory_bytes / units::kGiB) << "\n";

    // Which traffic crosses which link, and why.
    const double boundary = pp_boundary_bytes(plan);
    double max_grad = 0;
    for (int s = 0; s < plan.pp; ++s) max_grad = std::max(max_grad, stage_gradient_bytes(plan, s));
    const auto traffic = cross_cluster_traffic(plan);
    o << "\nTraffic per iteration: one pipeline boundary moves " << bytes_str(boundary)
      << " (activations + their gradients), one stage's DP all-reduce " << bytes_str(max_grad)
      << " of gradients (largest stage).\n";
    if (traffic.empty() && plan.job.sync.diloco()) {
        o << "Nothing crosses an inter-cluster link in an inner step; only the outer step's pseudo-gradients do.\n";
    } else if (traffic.empty()) {
        o << "Nothing crosses an inter-cluster link: TP stays in each node, PP and DP in one cluster.\n";
    } else {
        // Say what this plan actually sends across, then how that compares with the other choice:
        // the volumes alone do not decide it (how many boundaries or stages cross matters too).
        double pp_across = 0, dp_across = 0;
        for (const auto& t : traffic) {
            pp_across += t.pp_bytes;
            dp_across += t.dp_bytes;
        }
        const bool pp_lighter = boundary < max_grad;
        if (pp_across > 0 && dp_across == 0)
            o << "Pipelines cross sites and every DP group stays inside one; per crossing, PP is the "
              << (pp_lighter ? "lighter" : "heavier") << " traffic for this job"
              << (pp_lighter ? ".\n" : ", but fewer crossings made this layout cheaper overall.\n");
        else if (dp_across > 0 && pp_across == 0)
            o << "Each pipeline stays inside one site and DP crosses (hierarchical all-reduce); per crossing, DP is the "
              << (pp_lighter ? "heavier" : "lighter") << " traffic for this job"
              << (pp_lighter ? ", but fewer crossings made this layout cheaper overall.\n" : ".\n");
        else
            o << "Both pipeline boundaries and DP all-reduces cross sites (a mixed layout).\n";
        o << "Cross-cluster links (the widest route; each kind of traffic takes the route that suits it):\n";
        for (const auto& t : traffic) {
            o << "  " << cname(topo, t.a) << " <-> " << cname(topo, t.b);
            if (topo.finalized() && t.a < static_cast<int>(topo.clusters.size()) &&
                t.b < static_cast<int>(topo.clusters.size())) {
                const PathInfo& path = topo.path(t.a, t.b);
                o << " [" << fmt("%.1f Gbps", units::Bps_to_gbps(path.bandwidth_Bps)) << ", "
                  << fmt("%.1f ms", path.latency_s * 1e3);
                if (path.hops > 1) {
                    o << ", via";
                    for (int c : topo.route(t.a, t.b)) o << " " << cname(topo, c);
                } else if (const int li = topo.link_between(t.a, t.b); li >= 0 && !topo.links[static_cast<size_t>(li)].figure.empty()) {
                    o << ", " << topo.links[static_cast<size_t>(li)].figure;
                }
                o << "]";
                if (path.bandwidth_Bps > 0)
                    o << ": " << bytes_str(t.pp_bytes + t.dp_bytes) << "/iter, ~"
                      << secs((t.pp_bytes + t.dp_bytes) / path.bandwidth_Bps) << " on the wire";
            }
            o << "\n";
            const bool routed = topo.finalized() && t.a < static_cast<int>(topo.clusters.size()) &&
                                t.b < static_cast<int>(topo.clusters.size());
            if (t.pp_boundaries > 0)
                o << "      PP: " << t.pp_boundaries << " pipeline boundar" << (t.pp_boundaries == 1 ? "y" : "ies")
                  << ", " << bytes_str(t.pp_bytes)
                  << (routed ? route_note(topo, t.a, t.b, pp_route(topo, plan, t.a, t.b)) : "") << "\n";
            if (t.dp_stages > 0)
                o << "      DP: all-reduce of " << t.dp_stages << " stage" << (t.dp_stages == 1 ? "" : "s") << ", "
                  << bytes_str(t.dp_bytes) << (routed ? route_note(topo, t.a, t.b, dp_route_between(topo, plan, t.a, t.b)) : "")
                  << "\n";
        }
    }

    if (runner_up) {
        const Prediction& rq = runner_up->prediction;
        o << "\nRunner-up: " << shape(*runner_up) << ", " << plan_orientation(*runner_up) << " ("
          << (runner_up->policy.empty() ? plan.policy : runner_up->policy) << "): " << secs(rq.iteration_s);
        if (!rq.feasible) o << " (infeasible: " << rq.infeasible_reason << ")";
        o << "\n";
        breakdown(o, rq);
        if (rq.iteration_s > 0 && q.iteration_s > 0) {
            o << "This plan is " << fmt("%.2fx", rq.iteration_s / q.iteration_s) << " faster per iteration";
            // Name the component that differs most: that is why it won.
            const std::pair<const char*, double> diffs[] = {
                {"compute", rq.compute_s - q.compute_s},       {"pipeline bubble", rq.bubble_s - q.bubble_s},
                {"TP communication", rq.tp_comm_s - q.tp_comm_s}, {"PP communication", rq.pp_comm_s - q.pp_comm_s},
                {"exposed DP communication", rq.dp_comm_s - q.dp_comm_s},
                {"optimizer", rq.optimizer_s - q.optimizer_s}};
            const auto* best = &diffs[0];
            for (const auto& d : diffs)
                if (d.second > best->second) best = &d;
            if (best->second > 0)
                o << ", mostly because the runner-up spends " << secs(best->second) << " more on " << best->first;
            o << ".\n";
        }
    }
    return o.str();
}

}  // namespace spiderflow
