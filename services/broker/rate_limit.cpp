#include "services/broker/rate_limit.h"

#include <algorithm>

namespace spiderflow::broker {

bool RateLimiter::allow(const std::string& who) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, fresh] = buckets_.try_emplace(who);
    Bucket& b = it->second;
    if (fresh) {
        b.tokens = burst_;
    } else {
        b.tokens = std::min(burst_, b.tokens + rate_ * std::chrono::duration<double>(now - b.last).count());
    }
    b.last = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
}

}  // namespace spiderflow::broker
