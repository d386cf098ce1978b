// SiteState::free_view: the free capacity at one time, as a plain Topology, so that planners
// written against Topology plan on what is free without knowing about SiteState.
#include <algorithm>
#include <functional>

#include "common/site/site_state.h"

namespace spiderflow {

Topology SiteState::free_view(SiteTime t) const {
    return view_with([&](NodeRef ref) { return free_gpus(ref, t); }, "site state free view");
}

Topology SiteState::free_view(SiteTime t, const std::map<int, int>& none_on) const {
    return view_with([&](NodeRef ref) { return none_on.count(ref.cluster) ? 0 : free_gpus(ref, t); },
                     "site state free view beside a reservation");
}

Topology SiteState::usable_view() const {
    return view_with([&](NodeRef ref) { return use(ref).state == NodeState::up ? capacity(ref) : 0; },
                     "site state usable view");
}

Topology SiteState::view_with(const std::function<int(NodeRef)>& gpus_of, const char* what) const {
    Topology view = *topology_;
    for (size_t c = 0; c < view.clusters.size(); ++c) {
        auto& nodes = view.clusters[c].nodes;
        for (size_t n = 0; n < nodes.size(); ++n) {
            Node& node = nodes[n];
            const int free = gpus_of(NodeRef{static_cast<int>(c), static_cast<int>(n)});
            if (free == node.gpus) continue;
            node.gpus = free;
            // Usage is kept as counts, not GPU indices, so which slots are free is unknown:
            // drop the per-GPU locality rather than describe the wrong GPUs. Slurm's gres
            // allocation picks the actual devices.
            node.gpu_slots.clear();
            // A domain cannot be larger than the GPUs left; the free ones are taken to share one.
            node.nvlink_domain_size = std::min(node.nvlink_domain_size, free);
        }
    }
    for (const auto& [li, m] : measured_) {
        view.links[static_cast<size_t>(li)].bandwidth_Bps = m.bandwidth_Bps;
        view.links[static_cast<size_t>(li)].latency_s = m.latency_s;
        view.links[static_cast<size_t>(li)].figure = "measured by " + m.source + " at " + when_text(m.timestamp);
    }
    // Widest paths follow the effective link figures.
    view.finalize(what);
    return view;
}

}  // namespace spiderflow
