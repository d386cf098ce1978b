#include "common/planner/sync_compare.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "common/plan/plan_traffic.h"
#include "common/util/human_format.h"
#include "common/planner/plan_job.h"

namespace spiderflow {
namespace {

std::string fmt(const char* f, double v) { return format_number(f, v); }
std::string bytes_str(double b) { return format_bytes(b); }

std::string line(const char* name, const SyncModeFigures& f) {
    std::string o = std::string("  ") + name + ": ";
    if (!f.found) return o + "no plan (" + f.why + ")\n";
    o += fmt("%.3f s", f.iteration_s) + " per step, " + fmt("%.0f", f.tokens_per_s) + " tokens/s on " +
         std::to_string(f.gpus) + " GPUs, MFU " + fmt("%.1f%%", f.mfu * 100);
    if (f.sync.diloco()) o += ", compute utilisation " + fmt("%.1f%%", f.compute_utilisation * 100);
    else if (f.scaling_efficiency > 0) o += ", " + fmt("%.1f%%", f.scaling_efficiency * 100) + " of one site's speed";
    o += ", " + bytes_str(f.wan_bytes_per_step) + " over the WAN per step";
    if (f.sync.diloco()) {
        o += " (H=" + std::to_string(f.sync.inner_steps) + ", " + to_string(f.sync.outer_precision) +
             " pseudo-gradients" + (f.sync.streaming ? ", streaming" : "") + ": " +
             bytes_str(f.wan_bytes_per_step * f.sync.inner_steps) + " per outer step)";
    }
    return o + "\n";
}

nlohmann::ordered_json figures_json(const SyncModeFigures& f) {
    auto num = [](double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); };
    nlohmann::ordered_json j;
    j["mode"] = to_string(f.sync.mode);
    j["found"] = f.found;
    if (!f.found) {
        j["why"] = f.why;
        return j;
    }
    if (f.sync.diloco()) {
        j["inner_steps"] = f.sync.inner_steps;
        j["outer_precision"] = to_string(f.sync.outer_precision);
        j["streaming"] = f.sync.streaming;
    }
    j["gpus"] = f.gpus;
    j["iteration_s"] = num(f.iteration_s);
    j["tokens_per_s"] = num(f.tokens_per_s);
    j["mfu"] = num(f.mfu);
    j["scaling_efficiency"] = num(f.scaling_efficiency);
    if (f.sync.diloco()) j["compute_utilisation"] = num(f.compute_utilisation);
    j["wan_bytes_per_step"] = num(f.wan_bytes_per_step);
    return j;
}

}  // namespace

SyncModeFigures sync_mode_figures(const Plan& plan) {
    SyncModeFigures f;
    const Prediction& q = plan.prediction;
    f.found = q.feasible;
    if (!q.feasible) f.why = q.infeasible_reason;
    f.sync = plan.job.sync;
    f.gpus = plan.world_size();
    f.iteration_s = q.iteration_s;
    f.tokens_per_s = q.tokens_per_s;
    f.mfu = q.mfu;
    f.scaling_efficiency = q.scaling_efficiency;
    f.compute_utilisation = q.compute_utilisation;
    f.wan_bytes_per_step = iteration_wan_bytes(plan);
    if (plan.job.sync.diloco()) f.wan_bytes_per_step += q.outer_wan_bytes / plan.job.sync.inner_steps;
    return f;
}

SyncComparison compare_sync_modes(const PlannerPolicy& planner, const PlanRequest& request, const CostModel& cost,
                                  const Plan& chosen) {
    SyncComparison c;
    c.sync = sync_mode_figures(chosen);
    PlanRequest diloco = request;
    diloco.job.sync.mode = SyncMode::diloco;
    diloco.compare_sync_modes = false;
    c.diloco.sync = diloco.job.sync;
    try {
        c.diloco = sync_mode_figures(plan_job(planner, diloco, cost).plan);
    } catch (const std::exception& e) {
        c.diloco.why = e.what();
    }
    return c;
}

std::string sync_comparison_text(const SyncComparison& c) {
    std::string o = "\nSynchronous or DiLoCo (--sync either): both planned; this plan trains synchronously.\n";
    o += line("sync  ", c.sync);
    o += line("diloco", c.diloco);
    if (!c.sync.found || !c.diloco.found || c.sync.tokens_per_s <= 0 || c.diloco.tokens_per_s <= 0) return o;
    const double speed = c.diloco.tokens_per_s / c.sync.tokens_per_s;
    const double fewer = c.diloco.wan_bytes_per_step > 0 ? c.sync.wan_bytes_per_step / c.diloco.wan_bytes_per_step : 0;
    if (speed > 1.0) {
        o += "DiLoCo processes " + fmt("%.2fx", speed) + " the tokens per second";
    } else {
        o += "DiLoCo is not faster here (" + fmt("%.2fx", speed) + " the tokens per second)";
    }
    if (fewer > 1.0) o += " and moves " + fmt("%.0fx", fewer) + " fewer bytes over the WAN";
    o += ", but it is a different optimiser: the sites drift apart for " + std::to_string(c.diloco.sync.inner_steps) +
         " steps and an outer optimiser averages them, so loss per token is not that of synchronous training "
         "(check convergence on your job).";
    if (speed > 1.0) o += " To train with it, ask for --sync diloco.";
    return o + "\n";
}

std::string sync_comparison_json(const SyncComparison& c) {
    nlohmann::ordered_json j;
    j["chosen"] = "sync";
    j["sync"] = figures_json(c.sync);
    j["diloco"] = figures_json(c.diloco);
    j["note"] = "DiLoCo changes the optimisation (outer optimiser over pseudo-gradients every inner_steps steps): "
                "convergence per token differs from synchronous training; it is used only when asked for";
    return j.dump(2);
}

}  // namespace spiderflow
