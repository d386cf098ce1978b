// An agent's report about one part: checked against the job's attempt and state, then taken in;
// a part's end ends every other part.
#include "services/coalloc/coallocator.h"

#include <algorithm>

#include "services/coalloc/end_causes.h"
#include "services/coalloc/run_words.h"

namespace spiderflow::coalloc {

bool Coallocator::report(const std::string& cluster, const Report& r, int64_t now) {
    auto it = jobs_.find(r.xjob);
    if (it == jobs_.end()) return false;
    XJob& job = it->second;
    if (r.part >= job.parts.size() && r.part - job.parts.size() < job.retired.size()) {
        // A part of an earlier run: only its end and its reservations' removal are awaited.
        Part& old = job.retired[r.part - job.parts.size()];
        if (old.spec.cluster != cluster) return false;
        if (r.kind == ReportKind::Released) {
            auto rel = std::find(old.to_release.begin(), old.to_release.end(), r.reservation);
            if (rel == old.to_release.end()) return false;
            old.to_release.erase(rel);
        } else if (r.kind == ReportKind::Ended && old.job_id != 0 && (r.job_id == 0 || r.job_id == old.job_id) &&
                   !r.still_running) {
            old.ended = true;
        } else {
            return false;
        }
        job.retired.erase(std::remove_if(job.retired.begin(), job.retired.end(), [](const Part& p) { return !part_pending(p); }),
                          job.retired.end());
        return true;
    }
    if (r.part >= job.parts.size() || job.parts[r.part].spec.cluster != cluster) return false;
    Part& part = job.parts[r.part];
    if (r.kind == ReportKind::Released) {
        auto rel = std::find(part.to_release.begin(), part.to_release.end(), r.reservation);
        if (rel == part.to_release.end()) return false;
        part.to_release.erase(rel);
        return true;
    }
    if (r.kind == ReportKind::Reserved && (r.attempt != job.attempt || job.state != XJobState::Reserving)) {
        // A reservation made for an attempt that is over: it must not hold the nodes.
        if (r.reservation.empty() || part.reservation == r.reservation) return false;
        if (std::find(part.to_release.begin(), part.to_release.end(), r.reservation) == part.to_release.end()) {
            part.to_release.push_back(r.reservation);
        }
        return true;
    }
    if (r.kind == ReportKind::Ended && finished(job.state)) {
        // A cancel confirmed late, by a cluster that was silent when the job finished.
        if (part.job_id == 0 || part.ended || (r.job_id != 0 && r.job_id != part.job_id)) return false;
        part.ended = true;
        return true;
    }
    if (r.attempt != job.attempt || finished(job.state)) return false;
    // Queued again: every part of the run that ended has ended; a late word of it changes nothing.
    if (job.state == XJobState::Queued && r.kind == ReportKind::Ended) return false;
    switch (r.kind) {
    case ReportKind::Offer:
        if (job.state != XJobState::Negotiating || r.earliest_start <= 0) return false;
        part.offer = r.earliest_start;
        break;
    case ReportKind::Reserved:
        if (r.reservation.empty()) return false;
        part.reservation = r.reservation;
        part.nodes = r.nodes;
        part.address = r.address;
        break;
    case ReportKind::ReserveFailed: {
        if (job.state != XJobState::Reserving) return false;
        const int64_t next = job.start_at + policy_.retry_after_s;
        job.events.push_back({now, describe_part(job, r.part) + " could not reserve at " +
                                       std::to_string(job.start_at) + ": " + r.reason});
        job.setback = describe_part(job, r.part) + ": " + r.reason;
        for (Part& p : job.parts) {
            if (!p.reservation.empty()) p.to_release.push_back(p.reservation);
        }
        job.not_before = next;
        start_negotiating(job, now);
        return true;
    }
    case ReportKind::Submitted:
        if (r.job_id == 0 || (part.job_id != 0 && part.job_id != r.job_id)) return false;
        part.job_id = r.job_id;
        if (job.state == XJobState::Ending) part.ended = false;  // it exists after all: end it
        break;
    case ReportKind::Running:
        if (r.job_id == 0 || (part.job_id != 0 && part.job_id != r.job_id)) return false;
        part.job_id = r.job_id;
        part.running = true;
        if (job.state == XJobState::Ending) part.ended = false;
        break;
    case ReportKind::Ended: {
        if (part.job_id != 0 && r.job_id != 0 && part.job_id != r.job_id) return false;
        if (r.still_running && part.ended) return false;  // heard already, or ended by us since
        if (r.still_running && !part.end_reason.empty()) return true;  // the same failure, reported again
        // The same end again (a report whose answer the agent did not get, sent once more):
        // taken, but not a second line in the job's history.
        if (!r.still_running && part.ended && part.job_id != 0 && r.job_id == part.job_id && part.end_reason == r.reason) {
            return true;
        }
        // A part whose script failed but whose job waits for the verdict is still to be ended
        // (a Cancel order tells its output why).
        part.ended = !r.still_running;
        part.running = false;
        part.end_reason = r.reason;
        for (const std::string& node : r.lost_nodes) {
            const std::string name = cluster + ":" + node;
            if (std::find(job.lost_nodes.begin(), job.lost_nodes.end(), name) == job.lost_nodes.end()) {
                job.lost_nodes.push_back(name);
                job.events.push_back({now, describe_part(job, r.part) + ": node " + node + " did not confirm the end: lost"});
            }
        }
        const std::string ended = describe_part(job, r.part) + " ended: " + (r.reason.empty() ? "no reason given" : r.reason);
        // A part ended on the broker's order: its reason is the job's, said already.
        const bool ordered = r.reason.rfind(kCancelledByBroker, 0) == 0;
        if (r.completed && part.completed_at == 0) part.completed_at = now;
        job.events.push_back({now, ordered ? describe_part(job, r.part) + " ended, as ordered" : ended});
        if (job.state != XJobState::Ending && !r.completed) {
            end_all(job, now, ended, false);
            return true;
        }
        // Ranks die together: a part whose program failed may only have lost its peers, whose
        // part Slurm ended (cancelled, preempted, a node lost) at about the same time. The part
        // Slurm ended is the cause, whichever agent reported first.
        if (job.state == XJobState::Ending && !r.completed && program_failure(job.reason) && ended_by_slurm(r.reason)) {
            job.reason = ended;
        }
        break;
    }
    case ReportKind::Refused:
        end_all(job, now, describe_part(job, r.part) + " refused: " + (r.reason.empty() ? "no reason given" : r.reason),
                false);
        return true;
    case ReportKind::Released:
        break;
    }
    advance(job, now);
    return true;
}

}  // namespace spiderflow::coalloc
