#include "libspiderflow/site/site_json_fields.h"

#include <cstdio>
#include <cstdlib>
#include <limits>

#include "libspiderflow/util/errors.h"
#include "libspiderflow/util/json_read.h"
#include "libspiderflow/util/units.h"

namespace spiderflow::sitejson {

using jsonread::join;

namespace {

// 12 significant digits, as topology files are written: 0.9 Gbps stays 0.9, and a value read
// back writes the same text again.
double tidy(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.12g", x);
    return std::strtod(buf, nullptr);
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

std::vector<NodeShare> get_shares(const json& o, const std::string& source, const std::string& path) {
    const json& arr = member(o, "nodes", source, path);
    const std::string apath = join(path, "nodes");
    if (!arr.is_array()) throw InputError(source, 0, apath, "expected an array");
    std::vector<NodeShare> out;
    for (size_t i = 0; i < arr.size(); ++i) {
        const std::string p = apath + "[" + std::to_string(i) + "]";
        jsonread::only_keys(arr[i], {"cluster", "node", "gpus", "cores"}, source, p);
        NodeShare s;
        s.node.cluster = get_name(arr[i], "cluster", source, p);
        s.node.node = get_name(arr[i], "node", source, p);
        s.gpus = jsonread::get_int(member(arr[i], "gpus", source, p), source, join(p, "gpus"), 0, 1 << 20);
        if (arr[i].contains("cores")) s.cores = jsonread::get_int(arr[i].at("cores"), source, join(p, "cores"), 0, 1 << 24);
        out.push_back(std::move(s));
    }
    return out;
}

}  // namespace

const json& member(const json& obj, const char* key, const std::string& source, const std::string& path) {
    auto it = obj.find(key);
    if (it == obj.end()) throw InputError(source, 0, join(path, key), "missing");
    return *it;
}

std::string get_name(const json& obj, const char* key, const std::string& source, const std::string& path) {
    std::string s = jsonread::get_string(member(obj, key, source, path), source, join(path, key));
    if (s.empty()) throw InputError(source, 0, join(path, key), "must not be empty");
    return s;
}

ordered_json time_value(SiteTime t) { return t == kForever ? ordered_json(nullptr) : ordered_json(t); }

SiteTime get_time(const json& obj, const char* key, const std::string& source, const std::string& path) {
    const json& v = member(obj, key, source, path);
    if (v.is_null()) return kForever;
    if (v.is_number_integer()) {
        if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            throw InputError(source, 0, join(path, key), "time out of range");
        }
        return v.get<int64_t>();
    }
    throw InputError(source, 0, join(path, key), "expected an integer time in seconds (or null for no end)");
}

void put_allocation(ordered_json& o, const JobAllocation& a) {
    o["job"] = a.job;
    o["start"] = time_value(a.start);
    o["end"] = time_value(a.end);
    put_shares(o, a.nodes);
}

JobAllocation get_allocation(const json& o, const std::string& source, const std::string& path) {
    JobAllocation a;
    a.job = get_name(o, "job", source, path);
    a.start = get_time(o, "start", source, path);
    a.end = get_time(o, "end", source, path);
    a.nodes = get_shares(o, source, path);
    return a;
}

void put_reservation(ordered_json& o, const Reservation& r) {
    o["name"] = r.name;
    o["start"] = time_value(r.start);
    o["end"] = time_value(r.end);
    put_shares(o, r.nodes);
}

Reservation get_reservation(const json& o, const std::string& source, const std::string& path) {
    Reservation r;
    r.name = get_name(o, "name", source, path);
    r.start = get_time(o, "start", source, path);
    r.end = get_time(o, "end", source, path);
    r.nodes = get_shares(o, source, path);
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

LinkMeasurement get_measurement(const json& o, const std::string& source, const std::string& path) {
    LinkMeasurement m;
    m.a = get_name(o, "a", source, path);
    m.b = get_name(o, "b", source, path);
    m.bandwidth_Bps = units::gbps_to_Bps(jsonread::get_number(member(o, "gbps", source, path), source, join(path, "gbps")));
    m.latency_s =
        units::ms_to_s(jsonread::get_number(member(o, "latency_ms", source, path), source, join(path, "latency_ms")));
    m.timestamp = get_time(o, "timestamp", source, path);
    m.source = jsonread::get_string(member(o, "source", source, path), source, join(path, "source"));
    return m;
}

void put_node_state(ordered_json& o, const NodeStateChanged& s) {
    o["cluster"] = s.node.cluster;
    o["node"] = s.node.node;
    o["state"] = to_string(s.state);
    o["reason"] = s.reason;
    if (s.features) o["features"] = *s.features;
}

NodeStateChanged get_node_state(const json& o, const std::string& source, const std::string& path) {
    NodeStateChanged s;
    s.node.cluster = get_name(o, "cluster", source, path);
    s.node.node = get_name(o, "node", source, path);
    s.state = node_state_from_string(
        jsonread::get_string(member(o, "state", source, path), source, join(path, "state")), source, join(path, "state"));
    if (o.contains("reason")) s.reason = jsonread::get_string(o.at("reason"), source, join(path, "reason"));
    if (o.contains("features")) {
        const json& f = o.at("features");
        const std::string fpath = join(path, "features");
        if (!f.is_array()) throw InputError(source, 0, fpath, "expected an array of strings");
        std::vector<std::string> names;
        for (size_t i = 0; i < f.size(); ++i) {
            names.push_back(jsonread::get_string(f[i], source, fpath + "[" + std::to_string(i) + "]"));
        }
        s.features = std::move(names);
    }
    return s;
}

}  // namespace spiderflow::sitejson
