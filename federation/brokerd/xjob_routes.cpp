// The broker's cross-site job routes (doc/broker-api.md, "Cross-site jobs"): a home cluster's
// agent submits a job, every part's agent fetches its orders and reports back, readers list the
// jobs. Every decision goes through the one lock and into the store before the answer.
#include <httplib.h>

#include <chrono>
#include <optional>
#include <iostream>

#include "services/coalloc/xjob_json.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"
#include "common/util/utf8_prefix.h"
#include "federation/brokerd/broker_api.h"
#include "federation/brokerd/http_answer.h"
#include "services/broker_client/broker_api_types.h"

namespace spiderflow::broker {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

bool has_part_on(const coalloc::XJob& job, const std::string& cluster) {
    for (const coalloc::Part& p : job.parts) {
        if (p.spec.cluster == cluster) return true;
    }
    return false;
}

}  // namespace

void BrokerService::post_xjob(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    const std::string source = "cross-site job";
    std::lock_guard<std::mutex> lock(mu_);
    if (caller.role != Caller::Role::cluster) {
        error(res, 403, "'" + caller.name + "' is a reader; only a cluster's agent submits cross-site jobs");
        return;
    }
    if (!may_decide(res)) return;
    coalloc::XJob job = coalloc::xjob_request_from_json(jsonread::parse(req.body, source), source);
    if (job.id.rfind(caller.name + ":", 0) != 0) {
        throw InputError(source, 0, "id", "a cross-site job's id is HOME:JOBID, its home cluster first ('" +
                                              caller.name + ":...')");
    }
    for (size_t k = 0; k < job.parts.size(); ++k) {
        if (!state_.has_cluster(job.parts[k].spec.cluster)) {
            throw InputError(source, 0, "parts[" + std::to_string(k) + "].cluster",
                             "no cluster '" + job.parts[k].spec.cluster + "' in the federation topology");
        }
    }
    if (!has_part_on(job, caller.name)) {
        throw InputError(source, 0, "parts", "no part on the home cluster '" + caller.name + "'");
    }
    if (job.home_job != 0 && job.id != caller.name + ":" + std::to_string(job.home_job)) {
        throw InputError(source, 0, "home_job", "the held home job is the one the id names ('" + caller.name + ":" +
                                                    std::to_string(job.home_job) + "')");
    }
    job.home = caller.name;
    if (xjobs_.jobs().find(job.id) != nullptr) {
        error(res, 409, "cross-site job '" + job.id + "' exists already");
        return;
    }
    try {
        const coalloc::XJob& added = xjobs_.submit(std::move(job), unix_now(), holder_);
        answer(res, 201, broker_api::submitted_to_json(added));
    } catch (const std::invalid_argument& e) {
        throw InputError(source, 0, "", e.what());
    } catch (const LeaseLost& e) {
        lost_lease(e, &res);
    }
}

void BrokerService::get_xjobs(const httplib::Request&, httplib::Response& res, const Caller&) {
    std::lock_guard<std::mutex> lock(mu_);
    answer(res, 200, broker_api::xjobs_to_json(xjobs_.jobs().by_arrival()));
}

void BrokerService::get_xjob(const httplib::Request& req, httplib::Response& res, const Caller&) {
    const std::string id = req.matches[1];
    std::lock_guard<std::mutex> lock(mu_);
    const coalloc::XJob* job = xjobs_.jobs().find(id);
    if (job == nullptr) {
        error(res, 404, "no cross-site job '" + id + "'");
        return;
    }
    answer(res, 200, coalloc::xjob_to_json(*job, false));
}

void BrokerService::post_xjob_cancel(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    const std::string id = req.matches[1];
    const std::string source = "cancel of " + id;
    const std::optional<std::string> given = broker_api::cancel_reason_from_text(req.body, source);
    const std::string reason = given ? utf8_prefix(*given, 1024) : "by " + caller.name;
    std::lock_guard<std::mutex> lock(mu_);
    const coalloc::XJob* job = xjobs_.jobs().find(id);
    if (job == nullptr) {
        error(res, 404, "no cross-site job '" + id + "'");
        return;
    }
    if (caller.role != Caller::Role::cluster || !has_part_on(*job, caller.name)) {
        error(res, 403, "'" + caller.name + "' holds no part of '" + id + "' and may not cancel it");
        return;
    }
    if (!may_decide(res)) return;
    if (coalloc::finished(job->state)) {
        error(res, 409, "cross-site job '" + id + "' has already " + (job->state == coalloc::XJobState::Completed ? "completed" : "failed"));
        return;
    }
    try {
        xjobs_.cancel(id, reason, unix_now(), holder_);
        answer(res, 200, broker_api::cancelled_to_json(id, coalloc::state_name(xjobs_.jobs().find(id)->state)));
    } catch (const LeaseLost& e) {
        lost_lease(e, &res);
    }
}

void BrokerService::get_orders(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    const std::string name = req.matches[1];
    std::lock_guard<std::mutex> lock(mu_);
    if (!may_write(name, caller, res) || !may_decide(res)) return;
    answer(res, 200, broker_api::orders_to_json(xjobs_.orders_for(name)));
}

void BrokerService::post_reports(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    const std::string name = req.matches[1];
    const std::string source = "reports of " + name;
    std::lock_guard<std::mutex> lock(mu_);
    if (!may_write(name, caller, res) || !may_decide(res)) return;
    const std::vector<coalloc::Report> reports = broker_api::reports_from_text(req.body, source);
    try {
        const auto [accepted, ignored] = xjobs_.report(name, reports, unix_now(), holder_);
        answer(res, 200, broker_api::tally_to_json({static_cast<int>(accepted), static_cast<int>(ignored)}));
    } catch (const LeaseLost& e) {
        lost_lease(e, &res);
    }
}

std::map<std::string, int64_t> BrokerService::last_seen() const {
    std::map<std::string, int64_t> seen;
    for (const auto& c : state_.topology().clusters) {
        int64_t at = std::max(state_.updated_at(c.name), deciding_since_);
        auto it = seen_.find(c.name);
        if (it != seen_.end()) at = std::max(at, it->second);
        seen[c.name] = at;
    }
    return seen;
}

void BrokerService::decide_once() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!writable_) return;
    try {
        xjobs_.step(unix_now(), last_seen(), holder_);
        probes_.step(unix_now());
    } catch (const LeaseLost& e) {
        lost_lease(e, nullptr);
    } catch (const std::exception& e) {
        std::cerr << "spiderflow: brokerd: co-allocation round: " << e.what() << "\n";
    }
}

void BrokerService::decide_loop() {
    std::unique_lock<std::mutex> lock(decider_mu_);
    while (!stopping_) {
        decider_wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; });
        if (stopping_) break;
        lock.unlock();
        decide_once();
        lock.lock();
    }
}

}  // namespace spiderflow::broker
