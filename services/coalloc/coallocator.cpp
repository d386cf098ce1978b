#include "services/coalloc/coallocator.h"

#include "common/plan/launch_contract.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <stdexcept>

namespace spiderflow::coalloc {
namespace {

constexpr const char* kOrderNames[] = {"will_run", "reserve", "release", "submit", "cancel"};
constexpr const char* kReportNames[] = {"offer", "reserved", "reserve_failed", "released",
                                        "submitted", "running", "ended", "refused"};

bool shares_cluster(const XJob& a, const XJob& b) {
    for (const Part& p : a.parts) {
        for (const Part& q : b.parts) {
            if (p.spec.cluster == q.spec.cluster) return true;
        }
    }
    return false;
}

std::string describe_part(const XJob& job, size_t k) {
    return "part " + std::to_string(k) + " on " + job.parts[k].spec.cluster;
}

// The words of an Ended report are the agent's: Slurm's job state ("FAILED, exit code 1",
// "CANCELLED", "NODE_FAIL", "PREEMPTED", "TIMEOUT"), or kCancelledByBroker for a part the agent
// ended on the broker's order.
constexpr const char* kProgramFailed = "FAILED";

// The job ends because a part's own program failed (describe_part + " ended: FAILED...").
bool program_failure(const std::string& job_reason) {
    return job_reason.find(std::string(" ended: ") + kProgramFailed) != std::string::npos;
}
// Slurm ended the part, not its program, nor this broker.
bool ended_by_slurm(const std::string& reason) {
    return !reason.empty() && reason.rfind(kProgramFailed, 0) != 0 && reason.rfind(kCancelledByBroker, 0) != 0;
}

// Causes that are not the user's: Slurm took the part (a node lost, a preemption, a node that
// did not boot), the part's program died (ranks die with their lost peers, and the cause may show
// only later, or never: a part ended on this broker's order hides its own), or its cluster fell
// silent. Not: the user's scancel (CANCELLED), the time limit, a refusal, a completion.
bool requeueable(const std::string& job_reason) {
    for (const char* cause : {" ended: NODE_FAIL", " ended: PREEMPTED", " ended: BOOT_FAIL", " ended: FAILED",
                              " not heard from for over "}) {
        if (job_reason.find(cause) != std::string::npos) return true;
    }
    return false;
}

std::string step_env_value(const XJob& job, const char* name) {
    for (const auto& [k, v] : job.step_env) {
        if (k == name) return v;
    }
    return "";
}

// "tp=2 pp=2 dp=2" and "alpha:2x2,beta:2x2": a run's layout and where it ran.
std::string layout_of(const XJob& job) {
    return "tp=" + step_env_value(job, env::kTp) + " pp=" + step_env_value(job, env::kPp) + " dp=" +
           step_env_value(job, env::kDp);
}
std::string placement_of(const XJob& job) {
    std::string out;
    for (const Part& p : job.parts) {
        out += (out.empty() ? "" : ",") + p.spec.cluster + ":" + std::to_string(p.spec.nodes) + "x" +
               std::to_string(p.spec.gpus_per_node);
    }
    return out;
}

// Something of this part is still to be done on its cluster: its job to end, a reservation to go.
bool pending(const Part& p) { return !p.to_release.empty() || (p.job_id != 0 && !p.ended); }

}  // namespace

const char* order_name(OrderKind k) { return kOrderNames[static_cast<int>(k)]; }
const char* report_name(ReportKind k) { return kReportNames[static_cast<int>(k)]; }

bool report_from_name(const std::string& name, ReportKind* out) {
    for (size_t i = 0; i < std::size(kReportNames); ++i) {
        if (name == kReportNames[i]) {
            *out = static_cast<ReportKind>(i);
            return true;
        }
    }
    return false;
}

Coallocator::Coallocator(Policy policy) : policy_(policy) {}

const XJob& Coallocator::submit(XJob job, int64_t now) {
    if (job.id.empty()) throw std::invalid_argument("a cross-site job needs an id");
    if (jobs_.count(job.id) != 0) throw std::invalid_argument("cross-site job '" + job.id + "' exists already");
    if (job.parts.size() < 2) throw std::invalid_argument("a cross-site job has at least two parts");
    if (job.user.empty()) throw std::invalid_argument("a cross-site job needs a user");
    if (job.time_limit_s < 1) throw std::invalid_argument("a cross-site job needs a time limit");
    if (job.script.rfind("#!", 0) != 0) throw std::invalid_argument("a cross-site job's script starts with #!");
    std::set<std::string> clusters;
    for (const Part& p : job.parts) {
        if (!clusters.insert(p.spec.cluster).second) {
            throw std::invalid_argument("cluster '" + p.spec.cluster + "' holds two parts of one job");
        }
        if (p.spec.cluster.empty() || p.spec.nodes < 1 || p.spec.ranks < 1 || p.spec.gpus_per_node < 0) {
            throw std::invalid_argument("a part needs a cluster, at least one node and one rank");
        }
    }
    for (Part& p : job.parts) p = Part{p.spec};
    if (job.home_job != 0 && std::none_of(job.parts.begin(), job.parts.end(),
                                          [&](const Part& p) { return p.spec.cluster == job.home; })) {
        throw std::invalid_argument("a cross-site job with a held home job needs a part on its home cluster");
    }
    job.seq = next_seq_++;
    job.master_port = port_for(job.seq);
    job.attempt = 0;
    job.requeues = 0;
    job.submitted_at = now;
    job.not_before = now;
    job.start_at = 0;
    job.reason.clear();
    job.requeue = false;
    job.events.clear();
    job.state = XJobState::Queued;
    job.state_since = now;
    std::string where;
    for (const Part& p : job.parts) {
        where += (where.empty() ? "" : ", ") + p.spec.cluster + " " + std::to_string(p.spec.nodes) + "x" +
                 std::to_string(p.spec.gpus_per_node) + " GPUs";
    }
    job.events.push_back({now, "queued: " + where});
    const std::string id = job.id;
    return jobs_.emplace(id, std::move(job)).first->second;
}

int Coallocator::port_for(uint64_t seq) const {
    return policy_.master_port_base + static_cast<int>(seq % static_cast<uint64_t>(std::max(1, policy_.master_port_span)));
}

void Coallocator::restore(XJob job) {
    next_seq_ = std::max(next_seq_, job.seq + 1);
    // Stored before the port was kept with the job: the same port as it was given then.
    if (job.master_port == 0) job.master_port = port_for(job.seq);
    const std::string id = job.id;
    jobs_[id] = std::move(job);
}

const XJob* Coallocator::find(const std::string& id) const {
    auto it = jobs_.find(id);
    return it == jobs_.end() ? nullptr : &it->second;
}

void Coallocator::move(XJob& job, XJobState to, int64_t now, const std::string& why) {
    job.state = to;
    job.state_since = now;
    job.events.push_back({now, std::string(state_name(to)) + (why.empty() ? "" : ": " + why)});
}

std::vector<const XJob*> Coallocator::by_arrival() const {
    std::vector<const XJob*> out;
    for (const auto& [id, job] : jobs_) out.push_back(&job);
    std::sort(out.begin(), out.end(), [](const XJob* a, const XJob* b) { return a->seq < b->seq; });
    return out;
}

std::vector<XJob*> Coallocator::in_order() {
    std::vector<XJob*> out;
    for (const XJob* job : by_arrival()) out.push_back(&jobs_.at(job->id));
    return out;
}

bool Coallocator::blocked_by_earlier(const XJob& job) const {
    for (const auto& [id, other] : jobs_) {
        if (other.seq >= job.seq || !shares_cluster(job, other)) continue;
        if (other.state == XJobState::Queued || other.state == XJobState::Negotiating ||
            other.state == XJobState::Reserving) {
            return true;
        }
    }
    return false;
}

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
    if (job.state == XJobState::Starting && all([](const Part& p) { return p.running; })) {
        move(job, XJobState::Running, now, "every part running, world of " + std::to_string(world_size(job)));
        job.runs.push_back({run_number(job), layout_of(job), placement_of(job), now, 0, ""});
    }
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

bool Coallocator::requeue_after_failure(XJob& job, int64_t now) {
    // Only a run that started: a job that never found its start, or was refused, is not helped.
    const bool ran = !job.runs.empty() && job.runs.back().number == run_number(job);
    if (job.requeue || job.reason.empty() || !ran || !requeueable(job.reason)) return false;
    if (job.failure_requeues >= job.on_failure.requeues) {
        if (job.on_failure.requeues > 0) {
            job.reason += " (ended after " + std::to_string(job.failure_requeues + 1) + " runs: --llm-on-failure=requeue "
                          "allows " + std::to_string(job.on_failure.requeues) + " requeues)";
        }
        return false;
    }
    std::string lost;
    for (const Part& p : job.parts) {
        if (p.end_reason.rfind("NODE_FAIL", 0) != 0) continue;
        for (const std::string& node : p.nodes) {
            const std::string name = p.spec.cluster + ":" + node;
            if (std::find(job.lost_nodes.begin(), job.lost_nodes.end(), name) == job.lost_nodes.end()) {
                job.lost_nodes.push_back(name);
                lost += (lost.empty() ? "" : ", ") + name;
            }
        }
    }
    for (const std::string& c : job.lost_clusters) lost += (lost.empty() ? "" : ", ") + c;
    job.failure_requeues += 1;
    job.replan_at = now + policy_.replan_settle_s;
    job.not_before = job.replan_at;
    move(job, XJobState::Queued, now,
         "queued again after a failure (" + std::to_string(job.failure_requeues) + " of " +
             std::to_string(job.on_failure.requeues) + "): " + job.reason + "; planned anew in " +
             std::to_string(policy_.replan_settle_s) + " s" + (lost.empty() ? "" : " without " + lost));
    job.setback = job.reason;
    job.reason.clear();
    return true;
}

bool Coallocator::ready_to_negotiate(XJob& job, int64_t now) {
    if (job.replan_at == 0) return true;
    if (now < job.replan_at) return false;
    const std::vector<Part> before = job.parts;
    const std::vector<std::pair<std::string, std::string>> env_before = job.step_env;
    std::string why;
    if (replanner_) {
        try {
            why = replanner_(job);
        } catch (const std::exception& e) {
            why = e.what();
        }
    }
    if (!why.empty()) {
        job.parts = before;
        job.step_env = env_before;
        job.reason = "could not be planned again after " + job.setback + ": " + why;
        move(job, XJobState::Failed, now, job.reason);
        return false;
    }
    // What the last run left on its clusters is kept apart, to be ended and released.
    for (const Part& p : before) {
        if (pending(p)) job.retired.push_back(p);
    }
    for (Part& p : job.parts) p = Part{p.spec};
    job.replan_at = 0;
    job.events.push_back({now, "planned anew: " + layout_of(job) + " on " + placement_of(job)});
    return true;
}

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
        job.retired.erase(std::remove_if(job.retired.begin(), job.retired.end(), [](const Part& p) { return !pending(p); }),
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
        if (job.state == XJobState::Running &&
            std::all_of(job.parts.begin(), job.parts.end(), [](const Part& p) { return p.ended; })) {
            move(job, XJobState::Ending, now, "");
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

bool Coallocator::cancel(const std::string& id, const std::string& reason, int64_t now) {
    auto it = jobs_.find(id);
    if (it == jobs_.end() || finished(it->second.state)) return false;
    end_all(it->second, now, "cancelled: " + reason, false);
    return true;
}

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
            while (late < job.parts.size() && job.parts[late].running) ++late;
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

std::vector<std::string> Coallocator::step(int64_t now, const std::map<std::string, int64_t>& last_seen) {
    std::vector<std::string> changed;
    for (XJob* job : in_order()) {
        if (finished(job->state)) continue;
        const size_t events = job->events.size();
        if (job->state == XJobState::Queued && !blocked_by_earlier(*job) && ready_to_negotiate(*job, now)) {
            // Waiting its turn is not failing to find a start: the bound counts from here.
            job->seeking_since = now;
            start_negotiating(*job, now);
        }
        check_time(*job, now, last_seen);
        if (job->events.size() != events) changed.push_back(job->id);
    }
    return changed;
}

void Coallocator::order_part(const XJob& job, size_t k, std::vector<Order>* out) const {
    const Part& p = job.parts[k];
    Order base;
    base.xjob = job.id;
    base.part = k;
    base.attempt = job.attempt;
    base.user = job.user;
    base.account = job.account;
    base.nodes = p.spec.nodes;
    base.gpus_per_node = p.spec.gpus_per_node;
    base.duration_s = job.time_limit_s;
    // A job is cancelled before the reservation it runs in is removed: the release orders follow.
    auto releases = [&] {
        for (const std::string& name : p.to_release) {
            Order r = base;
            r.kind = OrderKind::Release;
            r.reservation = name;
            out->push_back(r);
        }
    };
    Order o = base;
    switch (job.state) {
    case XJobState::Negotiating:
        if (p.offer != 0) return releases();
        o.kind = OrderKind::WillRun;
        o.not_before = job.not_before;
        break;
    case XJobState::Reserving:
        if (!p.reservation.empty()) return releases();
        o.kind = OrderKind::Reserve;
        o.start_at = job.start_at;
        o.reservation = part_tag(job, k);
        break;
    case XJobState::Starting:
        if (p.job_id != 0) return releases();
        o.kind = OrderKind::Submit;
        o.start_at = job.start_at;
        o.reservation = p.reservation;
        o.job_name = part_tag(job, k);
        o.script = job.script;
        o.world_size = world_size(job);
        o.first_rank = first_rank(job, k);
        o.master_node = !job.parts[0].address.empty() ? job.parts[0].address
                        : job.parts[0].nodes.empty()  ? std::string()
                                                      : job.parts[0].nodes[0];
        o.master_port = job.master_port;
        if (uses_home_job(job, k)) o.held_job = job.home_job;
        o.step_env = job.step_env;
        o.step_env.push_back({env::kAttempt, std::to_string(run_number(job))});
        if (!job.runs.empty() && run_number(job) > 1) {
            o.step_env.push_back({env::kPreviousLayout, job.runs.back().layout + " parts=" + job.runs.back().placement});
        }
        o.one_task_per_node = job.one_task_per_node;
        break;
    case XJobState::Running:
    case XJobState::Queued:
        return releases();
    default:  // ending or finished: whatever still runs is ended
        if (p.job_id == 0 || p.ended) return releases();
        o.kind = OrderKind::Cancel;
        o.job_id = p.job_id;
        o.reason = job.reason;
        break;
    }
    out->push_back(o);
    releases();
}

std::vector<Order> Coallocator::orders_for(const std::string& cluster) const {
    std::vector<Order> out;
    for (const XJob* job : by_arrival()) {
        for (size_t k = 0; k < job->parts.size(); ++k) {
            if (job->parts[k].spec.cluster == cluster) order_part(*job, k, &out);
        }
        for (size_t i = 0; i < job->retired.size(); ++i) {
            const Part& p = job->retired[i];
            if (p.spec.cluster != cluster) continue;
            Order base;
            base.xjob = job->id;
            base.part = job->parts.size() + i;
            base.attempt = job->attempt;
            base.user = job->user;
            base.account = job->account;
            base.nodes = p.spec.nodes;
            base.gpus_per_node = p.spec.gpus_per_node;
            if (p.job_id != 0 && !p.ended) {
                Order o = base;
                o.kind = OrderKind::Cancel;
                o.job_id = p.job_id;
                o.reason = "an earlier run of the job, which runs again elsewhere";
                out.push_back(o);
            }
            for (const std::string& name : p.to_release) {
                Order o = base;
                o.kind = OrderKind::Release;
                o.reservation = name;
                out.push_back(o);
            }
        }
    }
    return out;
}

void Coallocator::forget_finished(int64_t before) {
    for (auto it = jobs_.begin(); it != jobs_.end();) {
        const XJob& j = it->second;
        const bool quiet = std::none_of(j.parts.begin(), j.parts.end(), pending) && j.retired.empty();
        if (finished(j.state) && j.state_since < before && quiet) {
            it = jobs_.erase(it);
        } else {
            ++it;
        }
    }
}

}  // namespace spiderflow::coalloc
