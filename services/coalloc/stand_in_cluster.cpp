#include "services/coalloc/stand_in_cluster.h"

#include <algorithm>
#include <string>
#include <utility>

namespace spiderflow::coalloc {

StandInCluster::StandInCluster(std::string name, int nodes, int64_t step_s)
    : name_(std::move(name)), nodes_(nodes), step_s_(std::max<int64_t>(1, step_s)) {}

int StandInCluster::busy(int64_t from, int64_t to, const std::string& except) const {
    int n = 0;
    for (const auto& [name, r] : reserved_) {
        if (name != except && r.start < to && from < r.end) n += r.nodes;
    }
    return n;
}

int64_t StandInCluster::earliest(int want, int64_t from, int64_t length) const {
    int64_t t = from;
    while (nodes_ - busy(t, t + length, "") < want) t += step_s_;
    return t;
}

std::optional<Report> StandInCluster::answer(const Order& o, int64_t now, uint32_t job_id) {
    Report r;
    r.xjob = o.xjob;
    r.part = o.part;
    r.attempt = o.attempt;
    switch (o.kind) {
    case OrderKind::WillRun:
        if (o.nodes > nodes_) {
            r.kind = ReportKind::Refused;
            r.reason = name_ + " has " + std::to_string(nodes_) + " nodes";
            break;
        }
        r.kind = ReportKind::Offer;
        r.earliest_start = earliest(o.nodes, std::max(o.not_before, now), o.duration_s);
        break;
    case OrderKind::Reserve:
        if (nodes_ - busy(o.start_at, o.start_at + o.duration_s, o.reservation) < o.nodes) {
            r.kind = ReportKind::ReserveFailed;
            r.reason = "busy";
            break;
        }
        reserved_[o.reservation] = {o.start_at, o.start_at + o.duration_s, o.nodes};
        r.kind = ReportKind::Reserved;
        r.reservation = o.reservation;
        r.nodes = {name_ + "-n1"};
        break;
    case OrderKind::Submit:
        if (now < o.start_at) return std::nullopt;
        r.kind = ReportKind::Running;
        r.job_id = job_id;
        break;
    case OrderKind::Release:
        reserved_.erase(o.reservation);
        r.kind = ReportKind::Released;
        r.reservation = o.reservation;
        break;
    case OrderKind::Cancel:
        r.kind = ReportKind::Ended;
        r.job_id = o.job_id;
        break;
    }
    return r;
}

std::vector<Report> StandInCluster::parts_done(const std::map<std::string, XJob>& jobs, int64_t now,
                                               int64_t work_s) const {
    std::vector<Report> out;
    for (const auto& [id, job] : jobs) {
        if (job.state != XJobState::Running || now < job.start_at + work_s) continue;
        for (size_t k = 0; k < job.parts.size(); ++k) {
            if (job.parts[k].spec.cluster != name_ || job.parts[k].ended) continue;
            Report e;
            e.kind = ReportKind::Ended;
            e.xjob = id;
            e.part = k;
            e.attempt = job.attempt;
            e.job_id = job.parts[k].job_id;
            e.completed = true;
            out.push_back(e);
        }
    }
    return out;
}

void StandInCluster::expire(int64_t now) {
    for (auto it = reserved_.begin(); it != reserved_.end();) it = it->second.end <= now ? reserved_.erase(it) : std::next(it);
}

}  // namespace spiderflow::coalloc
