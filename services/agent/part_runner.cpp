#include "services/agent/part_runner.h"

#include <algorithm>

#include <unistd.h>

#include <cstdio>
#include <optional>
#include <sstream>

#include "services/agent/part_fence.h"
#include "services/coalloc/xjob_json.h"
#include "services/slurmjob/spiderflow_conf.h"
#include "common/util/human_format.h"
#include "services/broker_client/broker_api_types.h"

namespace spiderflow::agent {

using coalloc::Order;
using coalloc::OrderKind;
using coalloc::Report;
using coalloc::ReportKind;

PartRunner::PartRunner(std::string cluster, BrokerClient client, SlurmHands& hands, PartPolicy policy, Log log,
                       PartFence* fence)
    : cluster_(std::move(cluster)), client_(std::move(client)), hands_(hands), policy_(std::move(policy)),
      log_(std::move(log)), fence_(fence), site_conf_(policy_.site_conf) {}

void PartRunner::reconfigure(BrokerClient client, PartPolicy policy) {
    client_ = std::move(client);
    policy_ = std::move(policy);
    site_conf_ = slurmjob::ConfErrorWatch(policy_.site_conf);
}

std::string PartRunner::site_off() {
    const std::string& error = site_conf_.error();
    if (error.empty()) return "";
    return "SpiderFlow is off on " + cluster_ + " (configuration error: " + error +
           "): it takes no cross-site part until the file is fixed";
}

std::string PartRunner::refusal(const Order& o) const {
    if (!policy_.users.empty() && policy_.users.count(o.user) == 0) {
        return "user '" + o.user + "' may not run cross-site parts on " + cluster_ + " (agent.conf part_users)";
    }
    if (!policy_.accounts.empty() && policy_.accounts.count(o.account) == 0) {
        return "account '" + o.account + "' may not run cross-site parts on " + cluster_ + " (agent.conf part_accounts)";
    }
    return "";
}

std::vector<Report> PartRunner::carry_out(const std::vector<Order>& orders, const std::vector<PartJob>& jobs) {
    std::vector<Report> out;
    std::optional<std::string> off;  // asked once a round, at the first part order
    for (const Order& o : orders) {
        Report r;
        r.xjob = o.xjob;
        r.part = o.part;
        r.attempt = o.attempt;
        try {
            // The allow-list is for parts other clusters send: a job submitted here (its id is
            // HOME:JOBID) is this cluster's own user's.
            const bool part_order = o.kind == OrderKind::WillRun || o.kind == OrderKind::Submit;
            const bool asks = part_order && o.xjob.rfind(cluster_ + ":", 0) != 0;
            if (part_order && !off) off = site_off();
            std::string no = part_order ? *off : "";
            if (no.empty() && asks) no = refusal(o);
            if (!no.empty()) throw PartRefused(no);
            switch (o.kind) {
            case OrderKind::WillRun:
                r.kind = ReportKind::Offer;
                r.earliest_start = std::max(hands_.will_run(o), o.not_before);
                break;
            case OrderKind::Reserve:
                r.kind = ReportKind::Reserved;
                r.reservation = o.reservation;
                try {
                    r.nodes = hands_.reserve(o);
                    if (!r.nodes.empty()) r.address = hands_.address_of(r.nodes.front());
                } catch (const PartRefused& e) {
                    r.kind = ReportKind::ReserveFailed;
                    r.reason = e.what();
                }
                break;
            case OrderKind::Release:
                hands_.release(o.reservation);
                r.kind = ReportKind::Released;
                r.reservation = o.reservation;
                break;
            case OrderKind::Submit: {
                r.kind = ReportKind::Submitted;
                for (const PartJob& j : jobs) {
                    if (j.xjob == o.xjob && j.part == o.part && j.attempt == o.attempt) r.job_id = j.job_id;
                }
                if (o.held_job != 0) {
                    // sbatch's own job, held since its submission, becomes this part. Done again
                    // until the broker has the report: a release that failed halfway is finished.
                    hands_.start_held(o);
                    if (r.job_id == 0) {
                        log_("part " + std::to_string(o.part) + " of " + o.xjob + " is the held job " +
                             std::to_string(o.held_job) + ", released into reservation " + o.reservation);
                    }
                    r.job_id = o.held_job;
                } else if (r.job_id == 0) {
                    r.job_id = hands_.submit(o);
                    log_("part " + std::to_string(o.part) + " of " + o.xjob + " submitted as job " +
                         std::to_string(r.job_id) + " for " + o.user + " in reservation " + o.reservation);
                }
                nudges_.expect(r.job_id, o.start_at);
                break;
            }
            case OrderKind::Cancel: {
                // Ended before the order came (its user's scancel, a node lost): its own end is
                // the news, so that the broker does not take it for one it ordered.
                const auto known = std::find_if(jobs.begin(), jobs.end(), [&](const PartJob& j) { return j.job_id == o.job_id; });
                const bool gone = known != jobs.end() && known->state == PartJob::State::Ended && !known->still_running;
                if (gone && cancelling_.count(o.job_id) == 0) {
                    r.kind = ReportKind::Ended;
                    r.job_id = o.job_id;
                    r.reason = known->reason;
                    r.completed = known->completed;
                    break;
                }
                if (cancelling_.count(o.job_id) == 0) {
                    hands_.cancel(o.job_id, "cross-site job " + o.xjob + " ends: " + o.reason);
                    log_("part " + std::to_string(o.part) + " of " + o.xjob + " (job " + std::to_string(o.job_id) +
                         ") cancelled: " + o.reason);
                }
                if (known != jobs.end() && known->state != PartJob::State::Pending) {
                    // It ran: its end is reported once every node confirmed it (watch).
                    cancelling_.emplace(o.job_id, Cancelling{o.reason, std::chrono::steady_clock::now()});
                    continue;
                }
                r.kind = ReportKind::Ended;
                r.job_id = o.job_id;
                r.reason = coalloc::kCancelledByBroker + o.reason;
                break;
            }
            }
        } catch (const PartRefused& e) {
            r.kind = ReportKind::Refused;
            r.reason = e.what();
            log_("part " + std::to_string(o.part) + " of " + o.xjob + " refused: " + e.what());
        } catch (const std::exception& e) {
            log_(std::string(coalloc::order_name(o.kind)) + " for " + o.xjob + " failed, next cycle tries again: " +
                 e.what());
            continue;
        }
        out.push_back(r);
    }
    return out;
}

std::vector<Report> PartRunner::watch(const std::vector<PartJob>& jobs) {
    std::vector<Report> out;
    for (const PartJob& j : jobs) {
        const auto ordered = cancelling_.find(j.job_id);
        if (ordered != cancelling_.end()) {
            const bool ended = j.state == PartJob::State::Ended && !j.still_running;
            // Every node still to confirm is one Slurm says does not answer: lost now. The grace
            // is for nodes that answer but have not finished (KillWait, a slow epilog).
            const bool lost = j.state == PartJob::State::Completing && !j.unconfirmed.empty() &&
                              std::all_of(j.unconfirmed.begin(), j.unconfirmed.end(), [&](const std::string& n) {
                                  return std::find(j.unresponsive.begin(), j.unresponsive.end(), n) != j.unresponsive.end();
                              });
            const bool overdue = j.state == PartJob::State::Completing &&
                                 std::chrono::steady_clock::now() - ordered->second.since >=
                                     std::chrono::duration<double>(policy_.end_grace_s);
            if (!ended && !lost && !overdue) continue;  // still ending
            Report r;
            r.kind = ReportKind::Ended;
            r.xjob = j.xjob;
            r.part = j.part;
            r.attempt = j.attempt;
            r.job_id = j.job_id;
            r.completed = j.completed;
            r.reason = coalloc::kCancelledByBroker + ordered->second.reason;
            if (!ended) {
                // Nodes that never confirmed the end are lost (or as good as lost) for now.
                r.lost_nodes = j.unconfirmed;
                std::string names;
                for (const std::string& n : j.unconfirmed) names += (names.empty() ? "" : ", ") + n;
                log_("part " + std::to_string(j.part) + " of " + j.xjob + " (job " + std::to_string(j.job_id) + "): nodes " +
                     names +
                     (lost ? " do not answer Slurm (not responding or down); reported lost"
                           : " have not confirmed its end after " + format_number("%g", policy_.end_grace_s) +
                                 " s; reported lost"));
            }
            out.push_back(r);
            continue;
        }
        if (j.state == PartJob::State::Pending || j.state == PartJob::State::Completing) continue;
        const int state = static_cast<int>(j.state);
        const bool told = reported_.count({j.job_id, state}) != 0;
        if (told && j.requeued) end_requeued(j);
        if (told) continue;
        Report r;
        r.xjob = j.xjob;
        r.part = j.part;
        r.attempt = j.attempt;
        r.job_id = j.job_id;
        r.kind = j.state == PartJob::State::Running ? ReportKind::Running : ReportKind::Ended;
        r.completed = j.completed;
        r.reason = j.reason;
        r.still_running = j.still_running;
        out.push_back(r);
    }
    return out;
}

void PartRunner::end_requeued(const PartJob& j) {
    // Only once the broker has its end: cancelled earlier, the part would show CANCELLED, the
    // user's word, should the report be lost. Again every round until Slurm has it ended.
    try {
        hands_.cancel(j.job_id, "cross-site job " + j.xjob + ": Slurm requeued this part, which ends it");
        log_("part " + std::to_string(j.part) + " of " + j.xjob + " (job " + std::to_string(j.job_id) + "): " + j.reason +
             "; cancelled, the broker ends or requeues the whole job");
    } catch (const std::exception& e) {
        log_("part " + std::to_string(j.part) + " of " + j.xjob + " (job " + std::to_string(j.job_id) +
             "): requeued by Slurm, not cancelled yet: " + e.what());
    }
}

void PartRunner::count(const std::vector<PartJob>& jobs) {
    figures_.by_state = {{"pending", 0}, {"running", 0}, {"completing", 0}, {"ended", 0}};
    for (const PartJob& j : jobs) {
        switch (j.state) {
        case PartJob::State::Pending: ++figures_.by_state["pending"]; break;
        case PartJob::State::Running: ++figures_.by_state["running"]; break;
        case PartJob::State::Completing: ++figures_.by_state["completing"]; break;
        case PartJob::State::Ended: ++figures_.by_state["ended"]; break;
        }
        // Seen requeued round after round until it is cancelled: counted once.
        if (j.requeued && requeued_seen_.insert(j.job_id).second) ++figures_.requeued_by_slurm;
    }
}

std::vector<Report> PartRunner::round(const std::vector<Order>& orders) {
    std::vector<PartJob> jobs = hands_.part_jobs();
    // A part the fence ended shows CANCELLED in Slurm, which the broker would take for its user's
    // scancel: its report says it was cut off instead.
    for (PartJob& j : jobs) {
        if (fence_ == nullptr || j.state != PartJob::State::Ended) continue;
        const std::string why = fence_->reason_for(j.job_id);
        if (!why.empty()) j.reason = why;
    }
    count(jobs);
    std::vector<Report> reports = carry_out(orders, jobs);
    // A cancel order for a part that ended on its own reports that end already: watching it too
    // would tell the broker twice in one batch (one history line printed twice).
    for (const Report& r : watch(jobs)) {
        const bool told = std::any_of(reports.begin(), reports.end(), [&](const Report& o) {
            return o.job_id != 0 && o.job_id == r.job_id && o.kind == r.kind;
        });
        if (!told) reports.push_back(r);
    }
    return reports;
}

void PartRunner::acknowledge(const std::vector<Report>& reports) {
    for (const Report& r : reports) {
        if (r.job_id == 0) continue;
        if (r.kind == ReportKind::Running) reported_.insert({r.job_id, static_cast<int>(PartJob::State::Running)});
        if (r.kind == ReportKind::Ended) reported_.insert({r.job_id, static_cast<int>(PartJob::State::Ended)});
        if (r.kind == ReportKind::Ended && !r.still_running) cancelling_.erase(r.job_id);
    }
}

void PartRunner::cycle() {
    last_round_ = std::chrono::steady_clock::now();
    busy_ = false;
    try {
        const std::vector<Order> orders = broker_api::orders_from_text(client_.get("/v1/clusters/" + cluster_ + "/orders"), "orders");
        if (fence_ != nullptr) fence_->heard(std::chrono::steady_clock::now());
        const std::vector<Report> reports = round(orders);
        // Parts starting (their nudges pending) are reported running within a second of it.
        busy_ = !cancelling_.empty() || !nudges_.empty();
        if (reports.empty()) return;
        client_.post("/v1/clusters/" + cluster_ + "/reports", broker_api::reports_to_text(reports));
        acknowledge(reports);  // only now: a report the broker did not get goes again next cycle
        busy_ = true;          // the broker may have the next stage's orders already
    } catch (const std::exception& e) {
        log_(std::string("cross-site parts: ") + e.what());
    }
}

void PartRunner::tick() {
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    for (uint32_t job_id : nudges_.due(now)) {
        try {
            hands_.nudge(job_id);
        } catch (const std::exception& e) {
            log_("part job " + std::to_string(job_id) + ": no scheduling pass asked at its start: " + e.what());
        }
    }
    if (busy_ && std::chrono::steady_clock::now() - last_round_ >= std::chrono::duration<double>(kBusyRoundS)) cycle();
}

}  // namespace spiderflow::agent
