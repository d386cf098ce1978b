// The broker's link probe routes (doc/broker-api.md, "Link probes"): a cluster asks for a probe
// of a link it ends (its agent on schedule, or an admin's `spiderflow probe now`), the two ends'
// agents fetch their probe orders and report back, readers follow a probe. Held in memory under
// the one lock: a probe is seconds long, and a lost one is asked for again.
#include <httplib.h>

#include <stdexcept>

#include "federation/brokerd/broker_api.h"
#include "federation/brokerd/http_answer.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"
#include "services/probe/probe_protocol.h"

namespace spiderflow::broker {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json probe_json(const Probe& p) {
    ordered_json j{{"id", p.id},          {"link", p.a + "-" + p.b}, {"a", p.a}, {"b", p.b},
                   {"state", probe_state_name(p.state)}, {"requested_by", p.requested_by},
                   {"created_at", p.created_at}, {"state_since", p.state_since}};
    if (!p.host.empty()) j["host"] = p.host;
    if (p.state == Probe::State::Done) {
        j["gbps"] = p.gbps;
        j["rtt_ms"] = p.rtt_ms;
    }
    if (!p.reason.empty()) j["reason"] = p.reason;
    return j;
}

}  // namespace

void BrokerService::post_probe(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    const std::string source = "probe request";
    const json body = jsonread::parse(req.body, source);
    jsonread::require_object(body, source, "");
    jsonread::only_keys(body, {"link"}, source, "");
    if (!body.contains("link")) throw InputError(source, 0, "link", "names the link to measure, A-B (A measures)");
    const std::string link = jsonread::get_string(body.at("link"), source, "link");
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
    ordered_json list = ordered_json::array();
    for (const Probe* p : probes_.all()) list.push_back(probe_json(*p));
    answer(res, 200, ordered_json{{"api_version", kApiVersion}, {"probes", list}});
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
    ordered_json list = ordered_json::array();
    for (const ProbeOrder& o : probes_.orders_for(name)) list.push_back(probe::probe_order_to_json(o));
    answer(res, 200, ordered_json{{"api_version", kApiVersion}, {"probes", list}});
}

void BrokerService::post_probe_reports(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    const std::string name = req.matches[1];
    const std::string source = "probe reports of " + name;
    std::lock_guard<std::mutex> lock(mu_);
    if (!may_write(name, caller, res) || !may_decide(res)) return;
    const json batch = report_batch(req.body, source);
    int accepted = 0, ignored = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
        const ProbeReport r = probe::probe_report_from_json(batch[i], source, "reports[" + std::to_string(i) + "]");
        (probes_.report(name, r, unix_now()) ? accepted : ignored) += 1;
    }
    answer(res, 200, ordered_json{{"accepted", accepted}, {"ignored", ignored}});
}

}  // namespace spiderflow::broker
