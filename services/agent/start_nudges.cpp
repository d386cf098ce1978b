#include "services/agent/start_nudges.h"

namespace spiderflow::agent {

void StartNudges::expect(uint32_t job_id, int64_t start_at) {
    auto it = pending_.find(job_id);
    if (it != pending_.end() && it->second.start_at == start_at) return;
    pending_[job_id] = Pending{start_at, static_cast<double>(start_at) + kAfterStart, 0};
}

std::vector<uint32_t> StartNudges::due(double now) {
    std::vector<uint32_t> out;
    for (auto it = pending_.begin(); it != pending_.end();) {
        Pending& p = it->second;
        if (now >= p.next) {
            out.push_back(it->first);
            p.next = now + kEvery;
            if (++p.sent == kTimes) {
                it = pending_.erase(it);
                continue;
            }
        }
        ++it;
    }
    return out;
}

}  // namespace spiderflow::agent
