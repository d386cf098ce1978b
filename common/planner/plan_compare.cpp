#include "common/planner/plan_compare.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <set>

#include "common/model/catalog.h"
#include "common/planner/plan_job.h"
#include "common/planner/shapes.h"

namespace spiderflow {
namespace {

std::string clusters_of(const Plan& p, const Topology& t) {
    std::set<int> seen;
    std::string out;
    for (const auto& c : p.cells) {
        if (!seen.insert(c.cluster).second) continue;
        out += (out.empty() ? "" : ", ") + t.clusters[static_cast<size_t>(c.cluster)].name;
    }
    return out;
}

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

using Clock = std::chrono::steady_clock;

// The best of `requests` (each planned, failures skipped), as a comparison with `chosen`; none
// is started past `deadline`, and each gets at most the time left before it.
PlanComparison best_of(const std::string& what, const PlannerPolicy& planner, const std::vector<PlanRequest>& requests,
                       const CostModel& cost, const Plan& chosen, const std::string& none,
                       const std::optional<Clock::time_point>& deadline) {
    PlanComparison c;
    c.what = what;
    Plan best;
    std::string last_error;
    size_t tried = 0;
    for (PlanRequest r : requests) {
        if (deadline) {
            const double left_s = std::chrono::duration<double>(*deadline - Clock::now()).count();
            if (left_s <= 0) {
                if (!c.found) {
                    c.why = "not judged: out of time after " + std::to_string(tried) + " of " +
                            std::to_string(requests.size()) + " candidates";
                    return c;
                }
                break;
            }
            r.time_limit_s = r.time_limit_s > 0 ? std::min(r.time_limit_s, left_s) : left_s;
        }
        ++tried;
        try {
            const PlanResult got = plan_job(planner, r, cost);
            if (!got.plan.prediction.feasible) continue;
            if (!c.found || better_prediction(got.plan.prediction, got.plan.world_size(), best.prediction, best.world_size(),
                                              r.objective)) {
                best = got.plan;
                c.found = true;
            }
        } catch (const std::exception& e) {
            last_error = e.what();
        }
    }
    if (!c.found) {
        c.why = none + (last_error.empty() ? "" : " (" + last_error + ")");
        return c;
    }
    c.clusters = clusters_of(best, cost.topology());
    c.gpus = best.world_size();
    c.iteration_s = best.prediction.iteration_s;
    c.speedup = best.prediction.iteration_s > 0 ? chosen.prediction.iteration_s / best.prediction.iteration_s : 0;
    c.request = "--gpus " + std::to_string(c.gpus) + (c.clusters.find(',') == std::string::npos ? " --allow " + c.clusters : "");
    return c;
}

}  // namespace

std::vector<PlanComparison> compare_plan(const PlannerPolicy& planner, const PlanRequest& request, const CostModel& cost,
                                         const Plan& chosen, double time_limit_s) {
    std::optional<Clock::time_point> deadline;
    if (time_limit_s > 0) {
        deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(time_limit_s));
    }
    std::vector<PlanComparison> out;
    const Topology& t = cost.topology();
    const int gpus = chosen.world_size();
    // Each alternative gets the same freedom the user gave, within its own bounds: at most the
    // plan's GPUs, fixed degrees dropped (they fixed the count the alternatives may undercut).
    PlanRequest base = request;
    base.job.gpu_mode = GpuCountMode::at_most;
    base.tp.reset();
    base.pp.reset();
    base.dp.reset();
    std::vector<int> eligible;
    try {
        eligible = eligible_clusters(request, t);  // the request planned already: its names are good
    } catch (const std::exception&) {
    }
    const auto capacity = [&](int c) {
        double flops = 0;
        int left = gpus;
        for (const Node& n : t.clusters[static_cast<size_t>(c)].nodes) {
            const GpuType* g = Catalog::builtin().gpu(n.gpu_type);
            const int take = std::min(left, n.gpus);
            left -= take;
            flops += take * (g ? g->peak_flops : 0);
        }
        return flops;
    };
    std::stable_sort(eligible.begin(), eligible.end(), [&](int a, int b) { return capacity(a) > capacity(b); });
    std::vector<PlanRequest> one_site;
    for (int c : eligible) {
        PlanRequest r = base;
        r.job.gpus = gpus;
        r.allowed_clusters = {t.clusters[static_cast<size_t>(c)].name};
        r.forbidden_clusters.clear();
        one_site.push_back(r);
    }
    if (clusters_of(chosen, t).find(',') != std::string::npos) {
        out.push_back(best_of("the best plan in one site", planner, one_site, cost, chosen, "no single site can hold it", deadline));
    }
    if (gpus > 1) {
        PlanRequest fewer = base;
        fewer.job.gpus = gpus - 1;
        out.push_back(best_of("the best plan on fewer GPUs", planner, {fewer}, cost, chosen, "no plan on fewer GPUs", deadline));
    }
    // A plan that --gpus-mode at-most kept smaller than asked: what all the GPUs asked for would
    // run at, so the text shows why fewer won (a thin or measured-slow link, say).
    if (request.job.gpu_mode == GpuCountMode::at_most && request.job.gpus > gpus) {
        PlanRequest all = base;
        all.job.gpu_mode = GpuCountMode::exact;
        all.job.gpus = request.job.gpus;
        out.push_back(best_of("the best plan on the " + std::to_string(request.job.gpus) + " GPUs asked for", planner, {all},
                              cost, chosen, "none fits them", deadline));
    }
    return out;
}

const PlanComparison* faster_alternative(const std::vector<PlanComparison>& comparisons) {
    const PlanComparison* faster = nullptr;
    for (const PlanComparison& c : comparisons) {
        if (c.found && c.speedup > 1.001 && (faster == nullptr || c.iteration_s < faster->iteration_s)) faster = &c;
    }
    return faster;
}

std::string does_not_pay(const PlanComparison& faster, const Plan& chosen, const std::string& ask) {
    return "This request does not pay: " + faster.what + " runs " + fmt(faster.speedup) + "x faster on " +
           std::to_string(faster.gpus) + " GPUs" + (faster.gpus < chosen.world_size() ? " (fewer)" : "") + ". Ask for " +
           ask + ".";
}

std::string comparison_text(const std::vector<PlanComparison>& comparisons, const Plan& chosen) {
    std::string out;
    for (const PlanComparison& c : comparisons) {
        if (!c.found) {
            out += "Compared with " + c.what + ": none, " + c.why + ".\n";
            continue;
        }
        out += "Compared with " + c.what + ": " + c.clusters + ", " + std::to_string(c.gpus) + " GPUs, " +
               fmt(c.iteration_s) + " s per iteration (" +
               (c.speedup > 1.001   ? fmt(c.speedup) + "x faster than this plan"
                : c.speedup < 0.999 ? "this plan is " + fmt(1 / c.speedup) + "x faster"
                                    : "as fast as this plan") +
               "; " + c.request + ").\n";
    }
    if (const PlanComparison* faster = faster_alternative(comparisons)) out += does_not_pay(*faster, chosen, faster->request) + "\n";
    return out;
}

}  // namespace spiderflow
