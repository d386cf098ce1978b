#include "services/agent/home_jobs.h"

#include <stdexcept>

#include "services/broker_client/broker_api_types.h"
#include "services/coalloc/xjob_json.h"
#include "services/launch/launch_contract.h"
#include "services/slurmjob/plan_summary.h"

namespace spiderflow::agent {

coalloc::XJob xjob_for_home_job(const std::string& cluster, const HomeJob& job, const std::string& script) {
    slurmjob::PlanSummary s;
    if (!slurmjob::parse_plan_summary(job.summary, &s) || s.parts.size() < 2) {
        throw std::invalid_argument("job " + std::to_string(job.job_id) + "'s AdminComment names no cross-site plan");
    }
    coalloc::XJob x;
    x.id = cluster + ":" + std::to_string(job.job_id);
    x.user = job.user;
    x.account = job.account;
    x.time_limit_s = job.time_limit_s;
    x.script = script;
    x.home_job = job.job_id;
    bool here = false;
    for (const slurmjob::SummaryPart& p : s.parts) {
        coalloc::Part part;
        part.spec = {p.cluster, p.nodes, p.gpus_per_node, p.ranks};
        here = here || p.cluster == cluster;
        x.parts.push_back(part);
    }
    if (!here) throw std::invalid_argument("job " + std::to_string(job.job_id) + "'s plan has no part on " + cluster);
    x.step_env.push_back({env::kContractVersion, std::to_string(env::kLaunchContractVersion)});
    for (const auto& kv : slurmjob::summary_step_env(s)) x.step_env.push_back(kv);
    x.one_task_per_node = job.tasks_per_node == 1 && s.gpus_per_node > 1;
    x.on_failure = {s.failure_requeues, s.replan_any};
    return x;
}

HomeJobHandoff::HomeJobHandoff(std::string cluster, BrokerClient client, SlurmHands& hands, int64_t default_time_limit_s,
                               Log log)
    : cluster_(std::move(cluster)), client_(std::move(client)), hands_(hands),
      default_time_limit_s_(default_time_limit_s), log_(std::move(log)) {}

void HomeJobHandoff::hand_over(const HomeJob& job) {
    const std::string id = cluster_ + ":" + std::to_string(job.job_id);
    hands_.take_over(job.job_id);
    HomeJob limited = job;
    if (limited.time_limit_s <= 0) limited.time_limit_s = default_time_limit_s_;
    coalloc::XJob x;
    try {
        x = xjob_for_home_job(cluster_, limited, hands_.batch_script(job.job_id));
    } catch (const std::invalid_argument& e) {
        handed_.insert(job.job_id);  // nothing to hand on, now or later: said once
        log_(std::string("held job left alone: ") + e.what());
        return;
    }
    try {
        client_.post("/v1/xjobs", coalloc::xjob_request_to_json(x).dump());
        log_("job " + std::to_string(job.job_id) + " of " + job.user + " handed to the broker as cross-site job " + id);
    } catch (const BrokerError& e) {
        if (e.status() == 409) {
            // The broker had it (a restarted agent, a lost answer).
        } else if (e.status() >= 400 && e.status() < 500 && e.status() != 429) {
            // The broker will never take it: the held job would wait for ever.
            log_("the broker refused cross-site job " + id + ", cancelling the held job: " + e.what());
            hands_.cancel(job.job_id, "the federation broker refused this cross-site job: " + std::string(e.what()));
        } else {
            throw;
        }
    }
    handed_.insert(job.job_id);
}

void HomeJobHandoff::cycle() {
    try {
        for (const HomeJob& job : hands_.home_jobs()) {
            const std::string id = cluster_ + ":" + std::to_string(job.job_id);
            try {
                if (job.ended && cancelled_.count(job.job_id) == 0) {
                    const std::string reason = "home job " + std::to_string(job.job_id) + " ended while held: " + job.end_reason;
                    try {
                        client_.post("/v1/xjobs/" + id + "/cancel", broker_api::cancel_to_text(reason));
                        log_("held job " + std::to_string(job.job_id) + " ended (" + job.end_reason + "): cross-site job " + id +
                             " cancelled");
                    } catch (const BrokerError& e) {
                        if (e.status() != 404 && e.status() != 409) throw;  // unknown or finished: nothing to end
                    }
                    cancelled_.insert(job.job_id);
                } else if (job.held && handed_.count(job.job_id) == 0) {
                    hand_over(job);
                }
            } catch (const std::exception& e) {
                log_("cross-site job " + id + ": " + e.what() + " (tried again next cycle)");
            }
        }
    } catch (const std::exception& e) {
        log_(std::string("held cross-site jobs: ") + e.what());
    }
}

}  // namespace spiderflow::agent
