// The broker's Prometheus metrics (GET /metrics, doc/broker-api.md): requests by route and
// status, a latency histogram, and the federation as the broker holds it: each cluster's GPUs,
// free GPUs and the age of its last update, each link's declared and measured figures, and the
// cross-site jobs by state. Names follow Prometheus' conventions (spiderflow_broker_ prefix,
// units in the name, _total on counters). Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "services/broker/federation_figures.h"

namespace spiderflow {
class MetricsText;
}

namespace spiderflow::broker {

class Metrics {
public:
    void observe(const std::string& route, int status, double seconds);
    std::string render(const FederationFigures& federation, int64_t now) const;
    // Every metric family the broker exports, in order (the dashboard check, doc/monitoring.md).
    static std::vector<std::string> names();

private:
    MetricsText text(const FederationFigures& federation, int64_t now) const;

    static constexpr std::array<double, 10> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                        0.025,  0.05,  0.1,    0.5,   1.0};
    mutable std::mutex mu_;
    std::map<std::pair<std::string, int>, uint64_t> requests_;
    std::array<uint64_t, kBuckets.size()> bucket_counts_{};
    uint64_t count_ = 0;
    double sum_s_ = 0;
};

}  // namespace spiderflow::broker
