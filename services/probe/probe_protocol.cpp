#include "services/probe/probe_protocol.h"

#include <cctype>
#include <iterator>

#include "common/util/json_read.h"
#include "common/util/utf8_prefix.h"

namespace spiderflow::probe {
namespace {

constexpr const char* kOrders[] = {"serve", "measure", "end"};
constexpr const char* kReports[] = {"serving", "measured", "ended", "failed"};

// A probe id, a link or a host as they travel: letters, digits and . _ - : only (a host for
// iperf3, never an option or a path).
std::string word(const jsonread::Object& o, const char* key) {
    const std::string s = o.string(key);
    bool ok = !s.empty() && s.size() <= 253 && s[0] != '-';
    for (char c : s) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == ':');
    if (!ok) o.fail_at(key, "'" + s + "' is not a probe id, link or host name");
    return s;
}

template <typename Kind, size_t N>
Kind kind_of(const jsonread::Object& o, const char* key, const char* const (&names)[N]) {
    const std::string s = o.string(key);
    for (size_t i = 0; i < N; ++i) {
        if (s == names[i]) return static_cast<Kind>(i);
    }
    o.fail_at(key, "unknown '" + s + "'");
    return Kind{};
}

}  // namespace

const char* probe_order_name(ProbeOrder::Kind k) { return kOrders[static_cast<int>(k)]; }
const char* probe_report_name(ProbeReport::Kind k) { return kReports[static_cast<int>(k)]; }

nlohmann::ordered_json probe_order_to_json(const ProbeOrder& o) {
    nlohmann::ordered_json j{{"probe", o.probe}, {"order", probe_order_name(o.kind)}, {"link", o.link}, {"port", o.port}};
    if (!o.host.empty()) j["host"] = o.host;
    return j;
}

nlohmann::ordered_json probe_report_to_json(const ProbeReport& r) {
    nlohmann::ordered_json j{{"probe", r.probe}, {"report", probe_report_name(r.kind)}};
    if (r.kind == ProbeReport::Kind::Serving) j["host"] = r.host;
    if (r.kind == ProbeReport::Kind::Measured) {
        j["gbps"] = r.gbps;
        j["rtt_ms"] = r.rtt_ms;
    }
    if (r.kind == ProbeReport::Kind::Failed) j["reason"] = r.reason;
    return j;
}

ProbeOrder probe_order_from_json(const nlohmann::json& j, const std::string& source, const std::string& path) {
    const jsonread::Object o(j, source, path, {"probe", "order", "link", "port", "host"});
    ProbeOrder out;
    out.probe = word(o, "probe");
    out.kind = kind_of<ProbeOrder::Kind>(o, "order", kOrders);
    out.link = word(o, "link");
    out.port = o.integer("port", 1, 65534);
    if (o.has("host")) out.host = word(o, "host");
    if (out.kind == ProbeOrder::Kind::Measure && out.host.empty()) o.fail_at("host", "a measure order names the serving node");
    return out;
}

ProbeReport probe_report_from_json(const nlohmann::json& j, const std::string& source, const std::string& path) {
    const jsonread::Object o(j, source, path, {"probe", "report", "host", "gbps", "rtt_ms", "reason"});
    ProbeReport out;
    out.probe = word(o, "probe");
    out.kind = kind_of<ProbeReport::Kind>(o, "report", kReports);
    if (out.kind == ProbeReport::Kind::Serving) out.host = word(o, "host");
    if (out.kind == ProbeReport::Kind::Measured) {
        out.gbps = o.number("gbps", 1e-9, 1e6);
        out.rtt_ms = o.number("rtt_ms", 0, 1e6);
    }
    out.reason = utf8_prefix(o.string_or("reason", ""), 1024);
    return out;
}

std::string probe_job_name(const std::string& probe, const std::string& role) { return "spiderflow-probe-" + probe + "-" + role; }

std::string probe_job_output(const std::string& job_name, const std::string& job_id) {
    return "/tmp/" + job_name + "-" + job_id + ".out";
}

}  // namespace spiderflow::probe
