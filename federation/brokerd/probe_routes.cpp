// The broker's link probe routes (doc/broker-api.md, "Link probes"): a cluster asks for a probe
// of a link it ends (its agent on schedule, or an admin's `spiderflow probe now`), the two ends'
// agents fetch their probe orders and report back, readers follow a probe. Held in memory under
// the one lock: a probe is seconds long, and a lost one is asked for again.
#include <httplib.h>

#include <stdexcept>

#include "federation/brokerd/broker_api.h"
#include "federation/brokerd/http_answer.h"
#include "services/broker_client/broker_api_types.h"
#include "common/util/errors.h"
#include "services/probe/probe_protocol.h"

namespace spiderflow::broker {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

broker_api::ProbeStatus status_of(const Probe& p) {
    broker_api::ProbeStatus s;
    s.id = p.id;
    s.a = p.a;
    s.b = p.b;
    s.state = probe_state_name(p.state);
    s.requested_by = p.requested_by;
    s.created_at = p.created_at;
    s.state_since = p.state_since;
    s.host = p.host;
    s.measured = p.state == Probe::State::Done;
    s.gbps = p.gbps;
    s.rtt_ms = p.rtt_ms;
    s.reason = p.reason;
    return s;
}

ordered_json probe_json(const Probe& p) { return broker_api::probe_to_json(status_of(p)); }

}  // namespace

void BrokerService::post_probe(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    const std::string source = "probe request";
    const std::string link = broker_api::probe_request_from_text(req.body, source);
    const auto dash = link.find('-');
    const std::string a = dash == std::string::npos ? link : link.substr(0, dash);
    const std::string b = dash == std::string::npos ? "" : link.substr(dash + 1);
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& c : {a, b}) {
        if (!state_.has_cluster(c)) throw InputError(source, 0, "link", "no cluster '" + c + "' in the federation topology (A-B)");
    }
    if (caller.role != Caller::Role::cluster || (caller.name != a && caller.name != b)) {
        error(res, 403, "'" + caller.name + "' does not end link " + link + " and may not probe it");
        return;
    }
    if (!may_decide(res)) return;
    try {
        const Probe& p = probes_.request(a, b, caller.name, unix_now());
        answer(res, 201, probe_json(p));
    } catch (const std::invalid_argument& e) {
        throw InputError(source, 0, "link", e.what());
    }
}

void BrokerService::get_probes(const httplib::Request&, httplib::Response& res, const Caller&) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<broker_api::ProbeStatus> all;
    for (const Probe* p : probes_.all()) all.push_back(status_of(*p));
    answer(res, 200, broker_api::probes_to_json(all));
}

void BrokerService::get_probe(const httplib::Request& req, httplib::Response& res, const Caller&) {
    const std::string id = req.matches[1];
    std::lock_guard<std::mutex> lock(mu_);
    const Probe* p = probes_.find(id);
    if (p == nullptr) {
        error(res, 404, "no probe '" + id + "'");
        return;
    }
    answer(res, 200, probe_json(*p));
}

void BrokerService::get_probe_orders(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    const std::string name = req.matches[1];
    std::lock_guard<std::mutex> lock(mu_);
    if (!may_write(name, caller, res) || !may_decide(res)) return;
    answer(res, 200, broker_api::probe_orders_to_json(probes_.orders_for(name)));
}

void BrokerService::post_probe_reports(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    const std::string name = req.matches[1];
    const std::string source = "probe reports of " + name;
    std::lock_guard<std::mutex> lock(mu_);
    if (!may_write(name, caller, res) || !may_decide(res)) return;
    broker_api::Tally tally;
    for (const ProbeReport& r : broker_api::probe_reports_from_text(req.body, source)) {
        (probes_.report(name, r, unix_now()) ? tally.accepted : tally.ignored) += 1;
    }
    answer(res, 200, broker_api::tally_to_json(tally));
}

}  // namespace spiderflow::broker
