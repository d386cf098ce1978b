#include "services/broker/metrics.h"

#include "common/util/metrics_text.h"

namespace spiderflow::broker {
namespace {

using Type = MetricsText::Type;

void federation_families(MetricsText& m, const FederationFigures& f, int64_t now) {
    int published = 0;
    for (const auto& c : f.clusters) published += c.updated_at > 0;
    m.family("spiderflow_broker_clusters", Type::gauge, "Clusters in the federation topology, and whether each published.");
    m.sample("spiderflow_broker_clusters", {{"published", "yes"}}, published);
    m.sample("spiderflow_broker_clusters", {{"published", "no"}}, static_cast<double>(f.clusters.size()) - published);
    m.family("spiderflow_broker_cluster_gpus", Type::gauge, "GPUs of a cluster's nodes in the federation topology.");
    for (const auto& c : f.clusters) m.sample("spiderflow_broker_cluster_gpus", {{"cluster", c.name}}, c.gpus);
    m.family("spiderflow_broker_cluster_free_gpus", Type::gauge,
             "GPUs a new job could get on a cluster now, as its agent last published its nodes; absent until it published.");
    for (const auto& c : f.clusters) {
        if (c.updated_at > 0) m.sample("spiderflow_broker_cluster_free_gpus", {{"cluster", c.name}}, c.free_gpus);
    }
    m.family("spiderflow_broker_update_age_seconds", Type::gauge, "Seconds since a cluster's last accepted update.");
    for (const auto& c : f.clusters) {
        if (c.updated_at > 0) m.sample("spiderflow_broker_update_age_seconds", {{"cluster", c.name}}, static_cast<double>(now - c.updated_at));
    }

    // Links: the topology's declared figures always, the measured ones where a cluster published
    // one (the planner prefers those). RTT is twice the one-way latency the topology holds.
    m.family("spiderflow_broker_link_declared_bandwidth_bytes_per_second", Type::gauge,
             "An inter-cluster link's bandwidth as the federation topology declares it.");
    for (const auto& l : f.links) m.sample("spiderflow_broker_link_declared_bandwidth_bytes_per_second", {{"link", l.name}}, l.declared_Bps);
    m.family("spiderflow_broker_link_declared_rtt_seconds", Type::gauge,
             "An inter-cluster link's round-trip time as the federation topology declares it (twice its latency).");
    for (const auto& l : f.links) m.sample("spiderflow_broker_link_declared_rtt_seconds", {{"link", l.name}}, 2 * l.declared_latency_s);
    m.family("spiderflow_broker_link_measured_bandwidth_bytes_per_second", Type::gauge,
             "An inter-cluster link's newest measured bandwidth, as its clusters published it; absent until measured.");
    for (const auto& l : f.links) {
        if (l.measured) m.sample("spiderflow_broker_link_measured_bandwidth_bytes_per_second", {{"link", l.name}}, l.measured_Bps);
    }
    m.family("spiderflow_broker_link_measured_rtt_seconds", Type::gauge,
             "An inter-cluster link's newest measured round-trip time; absent until measured.");
    for (const auto& l : f.links) {
        if (l.measured) m.sample("spiderflow_broker_link_measured_rtt_seconds", {{"link", l.name}}, 2 * l.measured_latency_s);
    }
    m.family("spiderflow_broker_link_measurement_age_seconds", Type::gauge,
             "Seconds since a link's newest measurement was taken; absent until measured.");
    for (const auto& l : f.links) {
        if (l.measured) m.sample("spiderflow_broker_link_measurement_age_seconds", {{"link", l.name}}, static_cast<double>(now - l.measured_at));
    }

    m.family("spiderflow_broker_epoch", Type::gauge,
             "The federation state's epoch: accepted writes so far, kept by the store (it goes back only with a store restored from a backup).");
    m.sample("spiderflow_broker_epoch", static_cast<double>(f.epoch));
    m.family("spiderflow_broker_active", Type::gauge,
             "1 when this broker decides (holds the lease, or shares its store with nobody), 0 on a standby.");
    m.sample("spiderflow_broker_active", f.active ? 1 : 0);
    m.family("spiderflow_broker_cross_site_jobs", Type::gauge, "Cross-site jobs the broker holds, by state.");
    for (const auto& [state, n] : f.xjobs) m.sample("spiderflow_broker_cross_site_jobs", {{"state", state}}, n);
}

}  // namespace

void Metrics::observe(const std::string& route, int status, double seconds) {
    std::lock_guard<std::mutex> lock(mu_);
    ++requests_[{route, status}];
    for (size_t i = 0; i < kBuckets.size(); ++i)
        if (seconds <= kBuckets[i]) ++bucket_counts_[i];
    ++count_;
    sum_s_ += seconds;
}

std::string Metrics::render(const FederationFigures& federation, int64_t now) const { return text(federation, now).str(); }

std::vector<std::string> Metrics::names() { return Metrics().text({}, 0).families(); }

MetricsText Metrics::text(const FederationFigures& federation, int64_t now) const {
    MetricsText m;
    {
        std::lock_guard<std::mutex> lock(mu_);
        m.family("spiderflow_broker_requests_total", Type::counter, "Requests by route and HTTP status.");
        for (const auto& [key, n] : requests_) {
            m.sample("spiderflow_broker_requests_total", {{"route", key.first}, {"status", std::to_string(key.second)}},
                     static_cast<double>(n));
        }
        m.family("spiderflow_broker_request_duration_seconds", Type::histogram, "Time to answer a request.");
        m.histogram("spiderflow_broker_request_duration_seconds", {}, {kBuckets.begin(), kBuckets.end()},
                    {bucket_counts_.begin(), bucket_counts_.end()}, count_, sum_s_);
    }
    federation_families(m, federation, now);
    return m;
}

}  // namespace spiderflow::broker
