// The co-allocator's jobs in arrival order: submitted, restored, stepped through time,
// cancelled and forgotten (see coallocator.h). The stages, the reports, the timers, the
// requeues and the orders each have their own coallocator_*.cpp.
#include "services/coalloc/coallocator.h"

#include <algorithm>
#include <functional>
#include <set>
#include <stdexcept>

namespace spiderflow::coalloc {
namespace {

bool shares_cluster(const XJob& a, const XJob& b) {
    for (const Part& p : a.parts) {
        for (const Part& q : b.parts) {
            if (p.spec.cluster == q.spec.cluster) return true;
        }
    }
    return false;
}

}  // namespace

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

bool Coallocator::cancel(const std::string& id, const std::string& reason, int64_t now) {
    auto it = jobs_.find(id);
    if (it == jobs_.end() || finished(it->second.state)) return false;
    end_all(it->second, now, "cancelled: " + reason, false);
    return true;
}

std::vector<std::string> Coallocator::forget_finished(int64_t now) {
    // The finished jobs no agent needs any more, newest end first.
    std::vector<std::pair<int64_t, std::string>> done;
    for (const auto& [id, j] : jobs_) {
        const bool quiet = std::none_of(j.parts.begin(), j.parts.end(), part_pending) && j.retired.empty();
        if (finished(j.state) && quiet) done.emplace_back(j.state_since, id);
    }
    std::sort(done.begin(), done.end(), std::greater<>());
    std::vector<std::string> forgotten;
    for (size_t k = 0; k < done.size(); ++k) {
        const bool old = done[k].first < now - policy_.keep_finished_s;
        if (old || k >= static_cast<size_t>(std::max(0, policy_.keep_finished))) {
            jobs_.erase(done[k].second);
            forgotten.push_back(done[k].second);
        }
    }
    return forgotten;
}

}  // namespace spiderflow::coalloc
