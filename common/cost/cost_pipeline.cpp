#include <algorithm>

#include "common/cost/cost_links.h"
#include "common/cost/cost_parts.h"
#include "common/plan/plan_routes.h"
#include "common/plan/plan_traffic.h"

namespace spiderflow::cost {

PipelineTimes pipeline_times(const CostModel& model, const Plan& plan, const CellTimes& cells, bool single_site) {
    const int P = plan.pp, D = plan.dp, M = plan.num_micro_batches;
    const int V = P > 1 ? std::max(plan.virtual_stages, 1) : 1;
    const double msg_bytes = activation_bytes(plan);
    auto link = [&](int s, int r) {
        LinkFigures l = link_between(model, plan.cell(s, r), plan.cell(s + 1, r), plan.tp, single_site);
        if (l.a >= 0) take_route(model, l, pp_route(model.topology(), plan, l.a, l.b));
        return l;
    };

    // Every replica sends at once, so all their crossings share the WAN links and switch
    // uplinks first.
    PhaseShares shares(model);
    for (int r = 0; r < D; ++r)
        for (int s = 0; s + 1 < P; ++s) shares.add(link(s, r), plan.cell(s, r), plan.cell(s + 1, r));
    PipelineTimes out;
    double slow_T = -1, slow_p2p = 0, slow_lat = 0, slow_stage = 0;
    for (int r = 0; r < D; ++r) {
        double stage_max = 0, p2p_max = 0, lat_sum = 0;
        int s_max = 0;
        for (int s = 0; s < P; ++s) {
            const size_t i = static_cast<size_t>(s) * D + r;
            if (cells.compute_s[i] + cells.tp_s[i] > stage_max) {
                stage_max = cells.compute_s[i] + cells.tp_s[i];
                s_max = s;
            }
            if (s + 1 < P) {
                const LinkFigures l = link(s, r);
                std::string why = link_problem(model, l, plan.cell(s, r), plan.cell(s + 1, r));
                if (!why.empty()) return {std::move(why)};
                // Activations forward and their gradients backward, each once per micro-batch.
                p2p_max = std::max(p2p_max, 2.0 * msg_bytes / effective_Bps(l, plan.cell(s, r), plan.cell(s + 1, r), shares));
                lat_sum += 2.0 * l.latency_s;  // paid once filling, once draining
            }
        }
        const double t = M * stage_max + (P - 1) * stage_max / V + M * V * p2p_max + lat_sum;
        if (t > slow_T) {
            slow_T = t;
            out.replica = r;
            out.stage = s_max;
            slow_p2p = p2p_max;
            slow_lat = lat_sum;
            slow_stage = stage_max;
        }
    }
    out.iteration_s = slow_T;
    out.p2p_s = M * V * slow_p2p;
    out.bubble_s = (P - 1) * slow_stage / V + slow_lat;
    return out;
}

}  // namespace spiderflow::cost
