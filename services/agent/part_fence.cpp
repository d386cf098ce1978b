#include "services/agent/part_fence.h"

#include <cmath>

#include "services/coalloc/end_causes.h"

namespace spiderflow::agent {

PartFence::PartFence(double after_s, Log log, Clock::time_point now) : after_s_(after_s), heard_at_(now), log_(std::move(log)) {}

void PartFence::set_after(double after_s) {
    std::lock_guard<std::mutex> lock(mu_);
    after_s_ = after_s;
}

void PartFence::heard(Clock::time_point now) {
    std::lock_guard<std::mutex> lock(mu_);
    if (said_) log_("the broker answers again: cross-site parts are taken again");
    heard_at_ = now;
    said_ = false;
}

std::string PartFence::reason_for(uint32_t job_id) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = ended_.find(job_id);
    return it == ended_.end() ? "" : it->second;
}

void PartFence::check(SlurmHands& hands, Clock::time_point now) {
    long silent = 0;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (after_s_ <= 0) return;
        const double s = std::chrono::duration<double>(now - heard_at_).count();
        if (s < after_s_) return;
        silent = std::lround(s);
        if (!said_) {
            log_("no answer from the broker for " + std::to_string(silent) +
                 " s (part_fence_after): ending this cluster's cross-site parts and removing their reservations, "
                 "since the broker ends their peers");
            said_ = true;
        }
    }
    const std::string words = std::string(coalloc::kIsolatedFromBroker) + ": this cluster had not reached the broker for " +
                              std::to_string(silent) + " s (part_fence_after)";
    try {
        for (const PartJob& j : hands.part_jobs()) {
            const bool live = j.state == PartJob::State::Pending || j.state == PartJob::State::Running ||
                              (j.state == PartJob::State::Ended && j.still_running);
            if (!live) continue;
            bool first = false;
            {
                std::lock_guard<std::mutex> lock(mu_);
                first = ended_.emplace(j.job_id, words).second;
            }
            hands.cancel(j.job_id, "cross-site job " + j.xjob + ": " + words + "; its part ends so that it never runs alone");
            if (first) {
                log_("part " + std::to_string(j.part) + " of " + j.xjob + " (job " + std::to_string(j.job_id) +
                     ") ended: the broker is out of reach");
            }
        }
        for (const std::string& r : hands.part_reservations()) {
            hands.release(r);
            log_("reservation " + r + " removed: the broker is out of reach");
        }
    } catch (const std::exception& e) {
        log_(std::string("fencing this cluster's parts failed, next second tries again: ") + e.what());
    }
}

}  // namespace spiderflow::agent
