#include "services/broker/metrics.h"

#include <cstdio>
#include <sstream>

namespace spiderflow::broker {

void Metrics::observe(const std::string& route, int status, double seconds) {
    std::lock_guard<std::mutex> lock(mu_);
    ++requests_[{route, status}];
    for (size_t i = 0; i < kBuckets.size(); ++i)
        if (seconds <= kBuckets[i]) ++bucket_counts_[i];
    ++count_;
    sum_s_ += seconds;
}

std::string Metrics::render(const std::vector<std::pair<std::string, int64_t>>& clusters, uint64_t epoch,
                            int64_t now, bool active, const std::map<std::string, int>& xjobs) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::ostringstream o;
    o << "# HELP spiderflow_broker_requests_total Requests by route and HTTP status.\n"
         "# TYPE spiderflow_broker_requests_total counter\n";
    for (const auto& [key, n] : requests_) {
        o << "spiderflow_broker_requests_total{route=\"" << key.first << "\",status=\"" << key.second << "\"} " << n
          << "\n";
    }
    o << "# HELP spiderflow_broker_request_seconds Time to answer a request.\n"
         "# TYPE spiderflow_broker_request_seconds histogram\n";
    for (size_t i = 0; i < kBuckets.size(); ++i) {
        char le[32];
        std::snprintf(le, sizeof le, "%g", kBuckets[i]);
        o << "spiderflow_broker_request_seconds_bucket{le=\"" << le << "\"} " << bucket_counts_[i] << "\n";
    }
    o << "spiderflow_broker_request_seconds_bucket{le=\"+Inf\"} " << count_ << "\n"
      << "spiderflow_broker_request_seconds_sum " << sum_s_ << "\n"
      << "spiderflow_broker_request_seconds_count " << count_ << "\n";
    int published = 0;
    for (const auto& c : clusters) published += c.second > 0;
    o << "# HELP spiderflow_broker_clusters Clusters in the federation topology, and those that published.\n"
         "# TYPE spiderflow_broker_clusters gauge\n"
      << "spiderflow_broker_clusters{published=\"yes\"} " << published << "\n"
      << "spiderflow_broker_clusters{published=\"no\"} " << clusters.size() - published << "\n";
    o << "# HELP spiderflow_broker_update_age_seconds Seconds since a cluster's last accepted update.\n"
         "# TYPE spiderflow_broker_update_age_seconds gauge\n";
    for (const auto& [name, at] : clusters) {
        if (at > 0) o << "spiderflow_broker_update_age_seconds{cluster=\"" << name << "\"} " << now - at << "\n";
    }
    o << "# HELP spiderflow_broker_epoch Accepted writes so far (the federation state's epoch).\n"
         "# TYPE spiderflow_broker_epoch counter\n"
      << "spiderflow_broker_epoch " << epoch << "\n";
    o << "# HELP spiderflow_broker_active 1 when this broker decides (holds the lease, or shares its store with "
         "nobody), 0 on a standby.\n"
         "# TYPE spiderflow_broker_active gauge\n"
      << "spiderflow_broker_active " << (active ? 1 : 0) << "\n";
    o << "# HELP spiderflow_broker_xjobs Cross-site jobs the broker holds, by state.\n"
         "# TYPE spiderflow_broker_xjobs gauge\n";
    for (const auto& [state, n] : xjobs) o << "spiderflow_broker_xjobs{state=\"" << state << "\"} " << n << "\n";
    return o.str();
}

}  // namespace spiderflow::broker
