#include "services/probe/link_health.h"

namespace spiderflow::probe {

std::vector<DegradedLink> degraded_links(const SiteState& state, const std::vector<std::string>& clusters,
                                         double planned_Bps, double fraction) {
    std::vector<DegradedLink> out;
    if (planned_Bps <= 0 || fraction <= 0) return out;
    const Topology& t = state.topology();
    for (size_t i = 0; i < clusters.size(); ++i)
        for (size_t k = i + 1; k < clusters.size(); ++k) {
            const int a = t.cluster_index(clusters[i]), b = t.cluster_index(clusters[k]);
            if (a < 0 || b < 0 || a == b) continue;
            const auto fig = state.effective_link(a, b);
            if (!fig || !fig->measured || fig->bandwidth_Bps >= fraction * planned_Bps) continue;
            out.push_back({clusters[i], clusters[k], fig->bandwidth_Bps, planned_Bps, fig->timestamp, fig->source});
        }
    return out;
}

}  // namespace spiderflow::probe
