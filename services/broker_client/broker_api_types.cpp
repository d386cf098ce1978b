#include "services/broker_client/broker_api_types.h"

#include <limits>

#include "common/util/errors.h"
#include "common/util/json_read.h"
#include "services/coalloc/xjob_json.h"

namespace spiderflow::broker_api {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using jsonread::Object;
using jsonread::kI64Max;
using jsonread::kIntMax;

// Refuses an answer of another API version than this side's.
void check_version(const Object& o) {
    if (o.integer("api_version", 0, kIntMax) != kVersion) {
        o.fail_at("api_version", "this side speaks broker API version " + std::to_string(kVersion));
    }
}

// A list answer's object: the API version, and the list under `key`.
Object list_answer(const json& j, const std::string& source, const char* key) {
    Object o(j, source, "", {"api_version", key});
    check_version(o);
    return o;
}

// [each delta's JSON] as text: each is already JSON text (site_delta.h), spliced, not parsed again.
std::string deltas_array_text(const std::vector<SiteDelta>& deltas) {
    std::string out = "[";
    for (size_t i = 0; i < deltas.size(); ++i) out += (i ? "," : "") + delta_to_json(deltas[i]);
    return out + "]";
}

// {"KEY": [each item's JSON]} as text.
template <class Item, class Write>
std::string batch_to_text(const char* key, const std::vector<Item>& items, Write write) {
    ordered_json body;
    body[key] = ordered_json::array();
    for (const Item& i : items) body[key].push_back(write(i));
    return body.dump();
}

// Each element of the array `key` of `list`, read by read(element, path).
template <class Item, class Read>
std::vector<Item> items_of(const Object& list, const char* key, Read read) {
    const json& a = list.array(key);
    std::vector<Item> out;
    for (size_t i = 0; i < a.size(); ++i) out.push_back(read(a[i], jsonread::item(key, i)));
    return out;
}

ProbeStatus probe_from_json(const json& j, const std::string& source, const std::string& path) {
    const Object o(j, source, path,
                   {"id", "link", "a", "b", "state", "requested_by", "created_at", "state_since", "host", "gbps", "rtt_ms",
                    "reason"});
    ProbeStatus p;
    p.id = o.name("id");
    p.a = o.name("a");
    p.b = o.name("b");
    if (o.string("link") != p.a + "-" + p.b) o.fail_at("link", "is not a-b");
    p.state = o.name("state");
    p.requested_by = o.string("requested_by");
    p.created_at = o.i64("created_at", 0, kI64Max);
    p.state_since = o.i64("state_since", 0, kI64Max);
    p.host = o.string_or("host", "");
    p.measured = o.has("gbps");
    if (p.measured) {
        p.gbps = o.number("gbps", 0, std::numeric_limits<double>::infinity());
        p.rtt_ms = o.number("rtt_ms", 0, std::numeric_limits<double>::infinity());
    }
    p.reason = o.string_or("reason", "");
    return p;
}

}  // namespace

std::string federation_to_text(uint64_t epoch, const std::string& topology_json, const std::string& state_json) {
    // Spliced as text: the two documents are large, and are already JSON.
    return "{\"api_version\":" + std::to_string(kVersion) + ",\"epoch\":" + std::to_string(epoch) +
           ",\"topology\":" + topology_json + ",\"state\":" + state_json + "}\n";
}

Federation federation_from_text(const std::string& text, const std::string& source) {
    const json j = jsonread::parse(text, source);
    jsonread::require_object(j, source, "");
    jsonread::only_keys(j, {"api_version", "epoch", "topology", "state"}, source, "");
    for (const char* key : {"api_version", "epoch", "topology", "state"}) {
        if (!j.contains(key)) throw InputError(source, 0, key, "missing: is this a SpiderFlow broker?");
    }
    if (j.at("api_version") != kVersion) throw InputError(source, 0, "api_version", "this spiderflow speaks broker API version 1");
    Federation f;
    f.epoch = static_cast<uint64_t>(jsonread::get_i64(j.at("epoch"), source, "epoch", 0, kI64Max));
    f.topology = j.at("topology");
    f.state = j.at("state");
    return f;
}

std::string federation_deltas_to_text(const FederationDeltas& d) {
    return "{\"api_version\":" + std::to_string(kVersion) + ",\"epoch\":" + std::to_string(d.epoch) +
           ",\"since\":" + std::to_string(d.since) + ",\"deltas\":" + deltas_array_text(d.deltas) + "}\n";
}

FederationDeltas federation_deltas_from_text(const std::string& text, const std::string& source) {
    const json j = jsonread::parse(text, source);
    const Object o(j, source, "", {"api_version", "epoch", "since", "deltas"});
    check_version(o);
    FederationDeltas d;
    d.epoch = static_cast<uint64_t>(o.i64("epoch", 0, kI64Max));
    d.since = static_cast<uint64_t>(o.i64("since", 0, kI64Max));
    if (d.since > d.epoch) o.fail_at("since", "is after the answer's epoch");
    for (const json& delta : o.array("deltas")) d.deltas.push_back(delta_from_json(delta.dump(), source));
    return d;
}

json clusters_to_json(const Clusters& c) {
    json list = json::array();
    for (const ClusterSummary& s : c.clusters) {
        json entry = {{"name", s.name}, {"nodes", s.nodes}, {"gpus", s.gpus}, {"free_gpus", s.free_gpus},
                      {"published", s.published()}};
        if (s.published()) {
            entry["updated_at"] = s.updated_at;
            entry["age_s"] = s.age_s;
        }
        if (s.contact_at > 0) entry["contact_at"] = s.contact_at;
        list.push_back(entry);
    }
    return json{{"api_version", kVersion}, {"epoch", c.epoch}, {"clusters", list}};
}

Clusters clusters_from_text(const std::string& text, const std::string& source) {
    const json j = jsonread::parse(text, source);
    const Object o(j, source, "", {"api_version", "epoch", "clusters"});
    check_version(o);
    Clusters c;
    c.epoch = static_cast<uint64_t>(o.i64("epoch", 0, kI64Max));
    for (const Object& e : o.objects("clusters", {"name", "nodes", "gpus", "free_gpus", "published", "updated_at", "age_s", "contact_at"})) {
        ClusterSummary s;
        s.name = e.name("name");
        s.nodes = e.integer("nodes", 0, kIntMax);
        s.gpus = e.integer("gpus", 0, kIntMax);
        s.free_gpus = e.integer("free_gpus", 0, kIntMax);
        if (e.boolean("published")) {
            s.updated_at = e.i64("updated_at", 1, kI64Max);
            s.age_s = e.i64("age_s", -kI64Max, kI64Max);
        } else if (e.has("updated_at") || e.has("age_s")) {
            e.fail("a cluster that never published has no updated_at or age_s");
        }
        if (e.has("contact_at")) s.contact_at = e.i64("contact_at", 1, kI64Max);
        c.clusters.push_back(std::move(s));
    }
    return c;
}

json inventory_answer_to_json(uint64_t epoch) { return json{{"epoch", epoch}}; }
json deltas_answer_to_json(uint64_t epoch, size_t applied) { return json{{"epoch", epoch}, {"applied", applied}}; }

Published published_from_text(const std::string& text, const std::string& source) {
    const json j = jsonread::parse(text, source);
    const Object o(j, source, "", {"epoch", "applied"});
    return {static_cast<uint64_t>(o.i64("epoch", 0, kI64Max)), static_cast<size_t>(o.integer_or("applied", 0, 0, kIntMax))};
}

std::string deltas_to_text(const std::vector<SiteDelta>& deltas) { return "{\"deltas\":" + deltas_array_text(deltas) + "}"; }

std::vector<SiteDelta> deltas_from_text(const std::string& text, const std::string& source) {
    const json body = jsonread::parse(text, source);
    jsonread::only_keys(body, {"deltas"}, source, "");
    if (!body.contains("deltas") || !body.at("deltas").is_array()) {
        throw InputError(source, 0, "deltas", "expected an array of site deltas");
    }
    std::vector<SiteDelta> deltas;
    for (const auto& d : body.at("deltas")) deltas.push_back(delta_from_json(d.dump(), source));
    return deltas;
}

ordered_json submitted_to_json(const coalloc::XJob& job) {
    return ordered_json{{"id", job.id}, {"seq", job.seq}, {"state", coalloc::state_name(job.state)}};
}

ordered_json cancelled_to_json(const std::string& id, const std::string& state) {
    return ordered_json{{"id", id}, {"state", state}};
}

XJobState xjob_state_from_text(const std::string& text, const std::string& source) {
    const json j = jsonread::parse(text, source);
    const Object o(j, source, "", {"id", "seq", "state"});
    XJobState s;
    s.id = o.name("id");
    s.seq = static_cast<uint64_t>(o.i64_or("seq", 0, 0, kI64Max));
    s.state = o.name("state");
    coalloc::XJobState known{};
    if (!coalloc::state_from_name(s.state, &known)) o.fail_at("state", "unknown state");
    return s;
}

std::string cancel_to_text(const std::string& reason) {
    json body = json::object();
    if (!reason.empty()) body["reason"] = reason;
    return body.dump();
}

std::optional<std::string> cancel_reason_from_text(const std::string& text, const std::string& source) {
    if (text.empty()) return std::nullopt;
    const json body = jsonread::parse(text, source);
    const Object o(body, source, "", {"reason"});
    if (!o.has("reason")) return std::nullopt;
    std::string reason = o.string("reason");
    if (reason.empty()) return std::nullopt;  // as cancel_to_text writes no reason
    return reason;
}

ordered_json xjobs_to_json(const std::vector<const coalloc::XJob*>& jobs) {
    ordered_json list = ordered_json::array();
    for (const coalloc::XJob* job : jobs) list.push_back(coalloc::xjob_to_json(*job, false));
    return ordered_json{{"api_version", kVersion}, {"xjobs", list}};
}

std::vector<coalloc::XJob> xjobs_from_text(const std::string& text, const std::string& source) {
    const json j = jsonread::parse(text, source);
    return items_of<coalloc::XJob>(list_answer(j, source, "xjobs"), "xjobs", [&source](const json& x, const std::string& path) {
        return coalloc::xjob_from_json(x, source + " " + path, false);
    });
}

coalloc::XJob xjob_from_text(const std::string& text, const std::string& source) {
    return coalloc::xjob_from_json(jsonread::parse(text, source), source, false);
}

ordered_json orders_to_json(const std::vector<coalloc::Order>& orders) {
    ordered_json list = ordered_json::array();
    for (const coalloc::Order& o : orders) list.push_back(coalloc::order_to_json(o));
    return ordered_json{{"api_version", kVersion}, {"orders", list}};
}

std::vector<coalloc::Order> orders_from_text(const std::string& text, const std::string& source) {
    const json j = jsonread::parse(text, source);
    return items_of<coalloc::Order>(list_answer(j, source, "orders"), "orders", [&source](const json& o, const std::string& path) {
        return coalloc::order_from_json(o, source, path);
    });
}

std::string reports_to_text(const std::vector<coalloc::Report>& reports) {
    return batch_to_text("reports", reports, coalloc::report_to_json);
}

json report_batch_from_text(const std::string& text, const std::string& source) {
    const json body = jsonread::parse(text, source);
    jsonread::require_object(body, source, "");
    jsonread::only_keys(body, {"reports"}, source, "");
    if (!body.contains("reports") || !body.at("reports").is_array()) {
        throw InputError(source, 0, "reports", "expected an array of reports");
    }
    return body.at("reports");
}

std::vector<coalloc::Report> reports_from_text(const std::string& text, const std::string& source) {
    const json batch = report_batch_from_text(text, source);
    std::vector<coalloc::Report> out;
    for (size_t i = 0; i < batch.size(); ++i) out.push_back(coalloc::report_from_json(batch[i], source, jsonread::item("reports", i)));
    return out;
}

ordered_json tally_to_json(const Tally& t) { return ordered_json{{"accepted", t.accepted}, {"ignored", t.ignored}}; }

Tally tally_from_text(const std::string& text, const std::string& source) {
    const json j = jsonread::parse(text, source);
    const Object o(j, source, "", {"accepted", "ignored"});
    return {o.integer("accepted", 0, kIntMax), o.integer("ignored", 0, kIntMax)};
}

std::string probe_request_to_text(const std::string& link) { return json{{"link", link}}.dump(); }

std::string probe_request_from_text(const std::string& text, const std::string& source) {
    const json body = jsonread::parse(text, source);
    jsonread::require_object(body, source, "");
    jsonread::only_keys(body, {"link"}, source, "");
    if (!body.contains("link")) throw InputError(source, 0, "link", "names the link to measure, A-B (A measures)");
    return jsonread::get_string(body.at("link"), source, "link");
}

ordered_json probe_to_json(const ProbeStatus& p) {
    ordered_json j{{"id", p.id},       {"link", p.a + "-" + p.b},         {"a", p.a},
                   {"b", p.b},         {"state", p.state},                {"requested_by", p.requested_by},
                   {"created_at", p.created_at}, {"state_since", p.state_since}};
    if (!p.host.empty()) j["host"] = p.host;
    if (p.measured) {
        j["gbps"] = p.gbps;
        j["rtt_ms"] = p.rtt_ms;
    }
    if (!p.reason.empty()) j["reason"] = p.reason;
    return j;
}

ProbeStatus probe_from_text(const std::string& text, const std::string& source) {
    return probe_from_json(jsonread::parse(text, source), source, "");
}

ordered_json probes_to_json(const std::vector<ProbeStatus>& probes) {
    ordered_json list = ordered_json::array();
    for (const ProbeStatus& p : probes) list.push_back(probe_to_json(p));
    return ordered_json{{"api_version", kVersion}, {"probes", list}};
}

std::vector<ProbeStatus> probes_from_text(const std::string& text, const std::string& source) {
    const json j = jsonread::parse(text, source);
    return items_of<ProbeStatus>(list_answer(j, source, "probes"), "probes", [&source](const json& p, const std::string& path) {
        return probe_from_json(p, source, path);
    });
}

ordered_json probe_orders_to_json(const std::vector<probe::ProbeOrder>& orders) {
    ordered_json list = ordered_json::array();
    for (const probe::ProbeOrder& o : orders) list.push_back(probe::probe_order_to_json(o));
    return ordered_json{{"api_version", kVersion}, {"probes", list}};
}

std::vector<probe::ProbeOrder> probe_orders_from_text(const std::string& text, const std::string& source) {
    const json j = jsonread::parse(text, source);
    return items_of<probe::ProbeOrder>(list_answer(j, source, "probes"), "probes",
                                       [&source](const json& o, const std::string& path) {
                                           return probe::probe_order_from_json(o, source, path);
                                       });
}

std::string probe_reports_to_text(const std::vector<probe::ProbeReport>& reports) {
    return batch_to_text("reports", reports, probe::probe_report_to_json);
}

std::vector<probe::ProbeReport> probe_reports_from_text(const std::string& text, const std::string& source) {
    const json batch = report_batch_from_text(text, source);
    std::vector<probe::ProbeReport> out;
    for (size_t i = 0; i < batch.size(); ++i) {
        out.push_back(probe::probe_report_from_json(batch[i], source, jsonread::item("reports", i)));
    }
    return out;
}

}  // namespace spiderflow::broker_api
