#include "services/agent/agent_metrics.h"

#include "common/util/metrics_text.h"
#include "common/util/text_file.h"

namespace spiderflow::agent {
namespace {

using Type = MetricsText::Type;

MetricsText write(const AgentFigures& f, const Topology* topology) {
    MetricsText m;
    const MetricLabels cluster = {{"cluster", f.cluster}};
    const PublishFigures& p = f.publish;
    m.family("spiderflow_agent_publish_duration_seconds", Type::histogram,
             "Time the broker took to take this cluster's part (a snapshot, deltas or a heartbeat), successful calls only.");
    m.histogram("spiderflow_agent_publish_duration_seconds", cluster, {p.kBuckets.begin(), p.kBuckets.end()},
                {p.buckets.begin(), p.buckets.end()}, p.calls, p.seconds);
    m.family("spiderflow_agent_publish_failures_total", Type::counter,
             "Calls to publish this cluster's part that failed (the broker unreachable, or refusing).");
    m.sample("spiderflow_agent_publish_failures_total", cluster, static_cast<double>(p.failures));
    m.family("spiderflow_agent_last_publish_success_timestamp_seconds", Type::gauge,
             "When the broker last took this cluster's part (Unix time); absent until it did.");
    if (p.last_ok_at > 0) m.sample("spiderflow_agent_last_publish_success_timestamp_seconds", cluster, static_cast<double>(p.last_ok_at));
    m.family("spiderflow_agent_last_federation_read_timestamp_seconds", Type::gauge,
             "When the agent last read the federation from the broker for job_submit's cache (Unix time); absent until it did.");
    if (p.federation_read_at > 0) {
        m.sample("spiderflow_agent_last_federation_read_timestamp_seconds", cluster, static_cast<double>(p.federation_read_at));
    }
    m.family("spiderflow_agent_last_cycle_timestamp_seconds", Type::gauge,
             "When the agent wrote these figures (Unix time): an old one means the agent stopped.");
    m.sample("spiderflow_agent_last_cycle_timestamp_seconds", cluster, static_cast<double>(f.now));

    m.family("spiderflow_agent_parts", Type::gauge, "Cross-site part jobs slurmctld holds on this cluster, by state.");
    for (const auto& [state, n] : f.parts.by_state) m.sample("spiderflow_agent_parts", {{"cluster", f.cluster}, {"state", state}}, n);
    m.family("spiderflow_agent_parts_requeued_by_slurm_total", Type::counter,
             "Cross-site part jobs Slurm requeued itself (each a failed part the broker ends or requeues with its job).");
    m.sample("spiderflow_agent_parts_requeued_by_slurm_total", cluster, static_cast<double>(f.parts.requeued_by_slurm));

    // Each measured link under its topology name ("a-b"), whichever end measured it.
    struct Named {
        std::string link;
        const LinkMeasurement* m;
    };
    std::vector<Named> links;
    for (const LinkMeasurement& l : f.links) {
        std::string name = l.a + "-" + l.b;
        if (topology != nullptr) {
            const int li = topology->link_between(topology->cluster_index(l.a), topology->cluster_index(l.b));
            if (li >= 0) {
                const Link& tl = topology->links[static_cast<size_t>(li)];
                name = topology->clusters[static_cast<size_t>(tl.a)].name + "-" + topology->clusters[static_cast<size_t>(tl.b)].name;
            }
        }
        links.push_back({name, &l});
    }
    auto per_link = [&](const char* name, const char* help, double (*value)(const LinkMeasurement&)) {
        m.family(name, Type::gauge, help);
        for (const Named& n : links) m.sample(name, {{"cluster", f.cluster}, {"link", n.link}}, value(*n.m));
    };
    per_link("spiderflow_agent_link_measured_bandwidth_bytes_per_second",
             "A link's newest bandwidth measured from this cluster (its probes, its links file), as published.",
             [](const LinkMeasurement& l) { return l.bandwidth_Bps; });
    per_link("spiderflow_agent_link_measured_rtt_seconds", "A link's newest measured round-trip time, as published.",
             [](const LinkMeasurement& l) { return 2 * l.latency_s; });
    per_link("spiderflow_agent_link_measured_timestamp_seconds",
             "When a link's newest figure was measured (Unix time): its age is time() minus this.",
             [](const LinkMeasurement& l) { return static_cast<double>(l.timestamp); });
    return m;
}

}  // namespace

void PublishFigures::observe_ok(double latency_s, SiteTime now) {
    for (size_t i = 0; i < kBuckets.size(); ++i) {
        if (latency_s <= kBuckets[i]) ++buckets[i];
    }
    ++calls;
    seconds += latency_s;
    last_ok_at = now;
}

std::string agent_metrics_text(const AgentFigures& figures, const Topology& topology) { return write(figures, &topology).str(); }

std::vector<std::string> agent_metric_names() { return write({}, nullptr).families(); }

bool write_metrics_textfile(const std::string& path, const std::string& text) { return write_whole_file(path, text, 0644); }

}  // namespace spiderflow::agent
