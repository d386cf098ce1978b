// The stages of one attempt, as reports bring them: negotiating (every cluster's offer in: the
// common start) -> reserving (every part reserved) -> starting (every part running) -> running;
// and ending, which every part's end (or abandonment) turns into the job's verdict.
#include "services/coalloc/coallocator.h"

#include <algorithm>

#include "services/coalloc/run_words.h"

namespace spiderflow::coalloc {

void Coallocator::start_negotiating(XJob& job, int64_t now) {
    job.attempt += 1;
    job.start_at = 0;
    job.not_before = std::max(job.not_before, now);
    for (Part& p : job.parts) {
        p.offer = 0;
        p.reservation.clear();
        p.nodes.clear();
        p.job_id = 0;
        p.running = false;
        p.ended = false;
        p.abandoned = false;
        p.end_reason.clear();
        p.completed_at = 0;
    }
    move(job, XJobState::Negotiating, now, "attempt " + std::to_string(job.attempt) + ", asking every cluster when its part could start");
}

void Coallocator::end_all(XJob& job, int64_t now, const std::string& why, bool requeue) {
    job.reason = why;
    job.requeue = requeue;
    for (size_t k = 0; k < job.parts.size(); ++k) {
        Part& p = job.parts[k];
        // A part without a job has nothing to end, except sbatch's held job, which is the home
        // part even before it was released; its reservation goes either way.
        if (!p.reservation.empty()) p.to_release.push_back(p.reservation);
        p.reservation.clear();
        if (p.job_id == 0 && uses_home_job(job, k)) {
            p.job_id = job.home_job;
            p.ended = false;
        }
        if (p.job_id == 0) p.ended = true;
    }
    move(job, XJobState::Ending, now, why);
    advance(job, now);
}

void Coallocator::advance(XJob& job, int64_t now) {
    auto all = [&](auto pred) { return std::all_of(job.parts.begin(), job.parts.end(), pred); };
    if (job.state == XJobState::Negotiating && all([](const Part& p) { return p.offer > 0; })) {
        size_t latest = 0;
        for (size_t k = 1; k < job.parts.size(); ++k) {
            if (job.parts[k].offer > job.parts[latest].offer) latest = k;
        }
        job.start_at = std::max({job.parts[latest].offer, now + policy_.lead_s, job.not_before});
        move(job, XJobState::Reserving, now,
             "common start at " + std::to_string(job.start_at) + " (latest offer from " +
                 job.parts[latest].spec.cluster + "); reserving every part's nodes");
    }
    if (job.state == XJobState::Reserving && all([](const Part& p) { return !p.reservation.empty(); })) {
        move(job, XJobState::Starting, now, "every part reserved; submitting the parts into their reservations");
    }
    // A part that completed has run, though its agent may never have seen it running (the soak's
    // 1 s scripts did, and the job was started again once the start barrier passed).
    if (job.state == XJobState::Starting && all(part_started)) {
        move(job, XJobState::Running, now, "every part running, world of " + std::to_string(world_size(job)));
        job.runs.push_back({run_number(job), layout_of(job), placement_of(job), now, 0, ""});
    }
    // Every part ended while running (or completed unseen): the job ends.
    if (job.state == XJobState::Running && all([](const Part& p) { return p.ended; })) move(job, XJobState::Ending, now, "");
    if (job.state == XJobState::Ending && all([](const Part& p) { return p.ended || p.abandoned; })) {
        // A finished job's reservations would hold their nodes until their end: remove them now.
        for (Part& p : job.parts) {
            if (!p.reservation.empty()) p.to_release.push_back(p.reservation);
            p.reservation.clear();
        }
        if (!job.runs.empty() && job.runs.back().ended_at == 0 && job.runs.back().number == run_number(job)) {
            job.runs.back().ended_at = now;
            job.runs.back().end = job.reason.empty() ? "completed" : job.reason;
        }
        if (requeue_after_failure(job, now)) {
            // queued again, to be planned anew
        } else if (job.requeue && job.requeues < policy_.max_requeues) {
            job.requeues += 1;
            job.requeue = false;
            job.not_before = now;
            move(job, XJobState::Queued, now, "queued again (" + std::to_string(job.requeues) + " of " +
                                                  std::to_string(policy_.max_requeues) + ") after: " + job.reason);
            job.setback = job.reason;  // the next attempt may still complete
            job.reason.clear();
        } else if (job.reason.empty()) {
            move(job, XJobState::Completed, now, "");
        } else {
            move(job, XJobState::Failed, now, job.reason);
        }
    }
}

}  // namespace spiderflow::coalloc
