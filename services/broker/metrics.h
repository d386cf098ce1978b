// The broker's Prometheus metrics (GET /metrics): requests by route and status, a latency
// histogram, and per cluster the age of its last update. Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace spiderflow::broker {

class Metrics {
public:
    void observe(const std::string& route, int status, double seconds);
    // clusters: (name, last update in Unix seconds, 0 = never) for every cluster of the topology;
    // active: this broker decides (not a standby); xjobs: cross-site jobs by state name.
    std::string render(const std::vector<std::pair<std::string, int64_t>>& clusters, uint64_t epoch, int64_t now,
                       bool active, const std::map<std::string, int>& xjobs) const;

private:
    static constexpr std::array<double, 10> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                        0.025,  0.05,  0.1,    0.5,   1.0};
    mutable std::mutex mu_;
    std::map<std::pair<std::string, int>, uint64_t> requests_;
    std::array<uint64_t, kBuckets.size()> bucket_counts_{};
    uint64_t count_ = 0;
    double sum_s_ = 0;
};

}  // namespace spiderflow::broker
