// Requests per second per caller: a token bucket each, refilled continuously, so a cluster that
// floods the broker is slowed (429) without touching the others.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace spiderflow::broker {

class RateLimiter {
public:
    explicit RateLimiter(double per_second) : rate_(per_second), burst_(per_second) {}
    // true when `who` may make one more request now.
    bool allow(const std::string& who);

private:
    struct Bucket {
        double tokens = 0;
        std::chrono::steady_clock::time_point last;
    };
    double rate_;
    double burst_;
    std::mutex mu_;
    std::map<std::string, Bucket> buckets_;
};

}  // namespace spiderflow::broker
