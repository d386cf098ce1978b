// What each cluster's agent is to do now, derived from the jobs' states alone (level-triggered):
// asking twice gives the same orders.
#include "services/coalloc/coallocator.h"

#include "services/launch/launch_contract.h"

namespace spiderflow::coalloc {

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

}  // namespace spiderflow::coalloc
