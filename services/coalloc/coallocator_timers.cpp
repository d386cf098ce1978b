// The decisions time brings to one job: giving up on a common start, trying a later one, ending
// the parts when a cluster falls silent, a part completed past the grace or the start barrier
// missed, and abandoning the parts of a silent cluster while the job ends.
#include "services/coalloc/coallocator.h"

#include <algorithm>

#include "services/coalloc/run_words.h"

namespace spiderflow::coalloc {

void Coallocator::check_time(XJob& job, int64_t now, const std::map<std::string, int64_t>& last_seen) {
    auto silent = [&](const Part& p) {
        auto seen = last_seen.find(p.spec.cluster);
        return seen != last_seen.end() && now - seen->second > policy_.silent_after_s;
    };
    switch (job.state) {
    case XJobState::Negotiating:
    case XJobState::Reserving:
        if (now - job.seeking_since > policy_.give_up_after_s) {
            end_all(job, now,
                    "no common start found within " + std::to_string(policy_.give_up_after_s) + " s" +
                        (job.setback.empty() ? "" : " (last: " + job.setback + ")"),
                    false);
        } else if (job.state == XJobState::Reserving && now >= job.start_at) {
            // The start came before every reservation did: try a later one.
            job.setback = "not every part reserved by the common start";
            job.events.push_back({now, job.setback});
            for (Part& p : job.parts) {
                if (!p.reservation.empty()) p.to_release.push_back(p.reservation);
            }
            job.not_before = now + policy_.retry_after_s;
            start_negotiating(job, now);
        }
        break;
    case XJobState::Starting:
    case XJobState::Running: {
        for (size_t k = 0; k < job.parts.size(); ++k) {
            if (silent(job.parts[k])) {
                if (std::find(job.lost_clusters.begin(), job.lost_clusters.end(), job.parts[k].spec.cluster) ==
                    job.lost_clusters.end()) {
                    job.lost_clusters.push_back(job.parts[k].spec.cluster);
                }
                end_all(job, now,
                        job.parts[k].spec.cluster + " not heard from for over " + std::to_string(policy_.silent_after_s) + " s",
                        false);
                return;
            }
        }
        for (size_t k = 0; k < job.parts.size() && job.state == XJobState::Running; ++k) {
            const Part& done = job.parts[k];
            if (done.completed_at == 0 || now - done.completed_at < policy_.completion_grace_s) continue;
            end_all(job, now,
                    describe_part(job, k) + " completed " + std::to_string(now - done.completed_at) +
                        " s ago while the other parts still ran (their ranks wait on peers that are gone)",
                    false);
            return;
        }
        if (job.state == XJobState::Starting && now > job.start_at + policy_.barrier_s) {
            size_t late = 0;
            while (late < job.parts.size() && part_started(job.parts[late])) ++late;
            end_all(job, now,
                    describe_part(job, late) + " not running within " + std::to_string(policy_.barrier_s) +
                        " s of the common start",
                    true);
        }
        break;
    }
    case XJobState::Ending:
        // A cluster gone silent cannot confirm its part ended; its agent gets the cancel order
        // when it is back (finished jobs keep theirs).
        for (Part& p : job.parts) {
            if (!p.ended && silent(p)) {
                p.abandoned = true;
                p.end_reason = "its cluster is silent; cancelled when it is back";
            }
        }
        advance(job, now);
        break;
    default:
        break;
    }
}

}  // namespace spiderflow::coalloc
