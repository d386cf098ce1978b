#include "services/broker/federation_figures.h"

#include "services/coalloc/xjob.h"

namespace spiderflow::broker {

FederationFigures federation_figures(const FederationState& state, const coalloc::Coallocator& jobs, int64_t now) {
    FederationFigures f;
    const Topology& t = state.topology();
    const SiteState& merged = state.merged();
    for (size_t c = 0; c < t.clusters.size(); ++c) {
        FederationFigures::Cluster fc;
        fc.name = t.clusters[c].name;
        fc.nodes = static_cast<int>(t.clusters[c].nodes.size());
        fc.gpus = t.clusters[c].total_gpus();
        fc.free_gpus = merged.free_gpus(static_cast<int>(c), now);
        fc.updated_at = state.updated_at(fc.name);
        f.clusters.push_back(std::move(fc));
    }
    const auto& measured = merged.measured_links();
    for (size_t i = 0; i < t.links.size(); ++i) {
        const Link& l = t.links[i];
        FederationFigures::Link fl;
        fl.name = t.clusters[static_cast<size_t>(l.a)].name + "-" + t.clusters[static_cast<size_t>(l.b)].name;
        fl.declared_Bps = l.bandwidth_Bps;
        fl.declared_latency_s = l.latency_s;
        if (const auto m = measured.find(static_cast<int>(i)); m != measured.end()) {
            fl.measured = true;
            fl.measured_Bps = m->second.bandwidth_Bps;
            fl.measured_latency_s = m->second.latency_s;
            fl.measured_at = m->second.timestamp;
            fl.measured_by = m->second.source;
        }
        f.links.push_back(std::move(fl));
    }
    f.epoch = state.epoch();
    // Every state named, 0 or not: a dashboard then draws 0 rather than no data.
    for (int s = 0; s <= static_cast<int>(coalloc::XJobState::Failed); ++s) {
        f.xjobs[coalloc::state_name(static_cast<coalloc::XJobState>(s))] = 0;
    }
    for (const auto& [id, job] : jobs.jobs()) f.xjobs[coalloc::state_name(job.state)] += 1;
    return f;
}

}  // namespace spiderflow::broker
