#include "common/site/site_json_fields.h"

#include <cstdio>
#include <cstdlib>
#include <limits>

#include "common/util/units.h"
#include "common/util/parse_number.h"

namespace spiderflow::sitejson {

namespace {

// 12 significant digits, as topology files are written: 0.9 Gbps stays 0.9, and a value read
// back writes the same text again.
double tidy(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.12g", x);
    return to_number(buf).value_or(x);  // inf and nan print as words, and stay as they were
}

void put_shares(ordered_json& o, const std::vector<NodeShare>& nodes) {
    ordered_json arr = ordered_json::array();
    for (const NodeShare& s : nodes) {
        ordered_json n;
        n["cluster"] = s.node.cluster;
        n["node"] = s.node.node;
        n["gpus"] = s.gpus;
        if (s.cores != 0) n["cores"] = s.cores;
        arr.push_back(std::move(n));
    }
    o["nodes"] = std::move(arr);
}

std::vector<NodeShare> get_shares(const Object& o) {
    std::vector<NodeShare> out;
    for (const Object& n : o.objects("nodes", {"cluster", "node", "gpus", "cores"})) {
        NodeShare s;
        s.node.cluster = n.name("cluster");
        s.node.node = n.name("node");
        s.gpus = n.integer("gpus", 0, 1 << 20);
        if (n.has("cores")) s.cores = n.integer("cores", 0, 1 << 24);
        out.push_back(std::move(s));
    }
    return out;
}

}  // namespace

ordered_json time_value(SiteTime t) { return t == kForever ? ordered_json(nullptr) : ordered_json(t); }

SiteTime get_time(const Object& o, const char* key) {
    const json& v = o.at(key);
    if (v.is_null()) return kForever;
    if (!v.is_number_integer()) o.fail_at(key, "expected an integer time in seconds (or null for no end)");
    return o.i64(key, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
}

void put_allocation(ordered_json& o, const JobAllocation& a) {
    o["job"] = a.job;
    o["start"] = time_value(a.start);
    o["end"] = time_value(a.end);
    put_shares(o, a.nodes);
}

JobAllocation get_allocation(const Object& o) {
    JobAllocation a;
    a.job = o.name("job");
    a.start = get_time(o, "start");
    a.end = get_time(o, "end");
    a.nodes = get_shares(o);
    return a;
}

void put_reservation(ordered_json& o, const Reservation& r) {
    o["name"] = r.name;
    o["start"] = time_value(r.start);
    o["end"] = time_value(r.end);
    put_shares(o, r.nodes);
}

Reservation get_reservation(const Object& o) {
    Reservation r;
    r.name = o.name("name");
    r.start = get_time(o, "start");
    r.end = get_time(o, "end");
    r.nodes = get_shares(o);
    return r;
}

void put_measurement(ordered_json& o, const LinkMeasurement& m) {
    o["a"] = m.a;
    o["b"] = m.b;
    o["gbps"] = tidy(units::Bps_to_gbps(m.bandwidth_Bps));
    o["latency_ms"] = tidy(units::s_to_ms(m.latency_s));
    o["timestamp"] = time_value(m.timestamp);
    o["source"] = m.source;
}

LinkMeasurement get_measurement(const Object& o) {
    LinkMeasurement m;
    m.a = o.name("a");
    m.b = o.name("b");
    m.bandwidth_Bps = units::gbps_to_Bps(o.number("gbps"));
    m.latency_s = units::ms_to_s(o.number("latency_ms"));
    m.timestamp = get_time(o, "timestamp");
    m.source = o.string("source");
    return m;
}

void put_node_state(ordered_json& o, const NodeStateChanged& s) {
    o["cluster"] = s.node.cluster;
    o["node"] = s.node.node;
    o["state"] = to_string(s.state);
    o["reason"] = s.reason;
    if (s.features) o["features"] = *s.features;
}

NodeStateChanged get_node_state(const Object& o) {
    NodeStateChanged s;
    s.node.cluster = o.name("cluster");
    s.node.node = o.name("node");
    s.state = node_state_from_string(o.string("state"), o.source(), o.path_of("state"));
    s.reason = o.string_or("reason", s.reason);
    if (o.has("features")) s.features = o.strings("features");
    return s;
}

}  // namespace spiderflow::sitejson
