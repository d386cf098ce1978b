#include <algorithm>
#include <cstdio>

#include "common/cost/cost_parts.h"
#include "common/cost/memory.h"
#include "common/util/units.h"

namespace spiderflow::cost {

namespace {

std::string gib(double bytes) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / units::kGiB);
    return buf;
}

}  // namespace

MemoryFit memory_fit(const CostModel& model, const Plan& plan) {
    const CostOptions& options = model.options();
    const int P = plan.pp, D = plan.dp;
    MemoryFit out;
    out.stage_bytes.resize(static_cast<size_t>(P));
    double worst_ratio = 0;
    for (int s = 0; s < P; ++s) {
        const StageMemory mem = stage_memory(plan, s);
        out.stage_bytes[static_cast<size_t>(s)] = mem.total();
        out.max_bytes = std::max(out.max_bytes, mem.total());
        for (int r = 0; r < D; ++r) {
            const StageCell& c = plan.cell(s, r);
            const GpuType* g = model.facts(c).gpu;
            const double limit = g->memory_bytes * options.memory_headroom;
            const double ratio = mem.total() / limit;
            if (ratio > 1.0 && ratio > worst_ratio) {
                worst_ratio = ratio;
                out.problem = "stage " + std::to_string(s) + " needs " + gib(mem.total()) + " per GPU (weights " +
                              gib(mem.weights) + ", gradients " + gib(mem.gradients) + ", optimizer " +
                              gib(mem.optimizer) + ", activations " + gib(mem.activations) + ") but " + g->name +
                              " on " + model.topology().clusters[static_cast<size_t>(c.cluster)].name + " allows " +
                              gib(limit) + " (" +
                              std::to_string(static_cast<int>(options.memory_headroom * 100 + 0.5)) + "% of " +
                              gib(g->memory_bytes) + ")";
            }
        }
    }
    return out;
}

}  // namespace spiderflow::cost
