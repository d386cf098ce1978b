// Synchronous training or DiLoCo, when the user allows both (--sync either): both are planned,
// both are shown with what each costs and what each changes, and the plan stays synchronous
// unless the user asks for DiLoCo. The optimisation differs (an outer optimiser over
// pseudo-gradients every H steps), so a faster DiLoCo plan is information, never a silent switch.
#pragma once

#include <string>

#include "common/planner/planner.h"

namespace spiderflow {

// One mode's plan, as the comparison shows it.
struct SyncModeFigures {
    bool found = false;
    std::string why;                // when !found: why no plan
    SyncSpec sync;
    int gpus = 0;
    double iteration_s = 0;         // per (inner) step, DiLoCo's outer step spread over its H
    double tokens_per_s = 0;
    double mfu = 0;
    double scaling_efficiency = 0;  // vs the same GPUs in one site
    double compute_utilisation = 0; // DiLoCo: time not waiting on the outer step
    double wan_bytes_per_step = 0;  // all WAN flows per (inner) step, outer steps spread over H
};

struct SyncComparison {
    SyncModeFigures sync;           // the chosen plan (the user said sync or either)
    SyncModeFigures diloco;
};

SyncModeFigures sync_mode_figures(const Plan& plan);

// Plans `request` again with DiLoCo (job.sync's H, precision and streaming) and puts it beside
// `chosen`, the synchronous plan. Never throws: a DiLoCo plan that cannot be made says why.
SyncComparison compare_sync_modes(const PlannerPolicy& planner, const PlanRequest& request, const CostModel& cost,
                                  const Plan& chosen);

// The trade in words (text output), and as a JSON object (json output's "sync_comparison").
std::string sync_comparison_text(const SyncComparison& c);
std::string sync_comparison_json(const SyncComparison& c);

}  // namespace spiderflow
