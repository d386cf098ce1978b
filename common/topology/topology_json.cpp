// Writer of our topology file format.
#include "common/topology/topology_json.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/topology/spiderflow_reader.h"
#include "common/util/errors.h"
#include "common/util/units.h"
#include "common/util/parse_number.h"

namespace spiderflow {
namespace {

using nlohmann::ordered_json;

// 12 significant digits; whole numbers as integers ("400", not "400.0").
ordered_json tidy(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.12g", x);
    const double r = to_number(buf).value_or(x);  // inf and nan print as words, and stay as they were
    if (r == std::floor(r) && std::fabs(r) < 1e15) return static_cast<int64_t>(r);
    return r;
}

bool same_nics(const std::vector<Nic>& x, const std::vector<Nic>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
        if (x[i].name != y[i].name || x[i].kind != y[i].kind || x[i].bandwidth_Bps != y[i].bandwidth_Bps ||
            x[i].numa != y[i].numa) {
            return false;
        }
    }
    return true;
}

// Same hardware and switch: may share one node group.
bool same_body(const Node& x, const Node& y) {
    return x.gpus == y.gpus && x.gpu_type == y.gpu_type && x.nvlink_domain_size == y.nvlink_domain_size &&
           x.leaf_switch == y.leaf_switch && x.gpu_slots.empty() && y.gpu_slots.empty() && same_nics(x.nics, y.nics);
}

void write_body(const Node& n, ordered_json& j) {
    j["gpus"] = n.gpus;
    if (!n.gpu_type.empty()) j["gpu_type"] = n.gpu_type;
    if (n.nvlink_domain_size != 0) j["nvlink_domain"] = n.nvlink_domain_size;
    if (!n.nics.empty()) {
        ordered_json nics = ordered_json::array();
        for (const Nic& nic : n.nics) {
            ordered_json o;
            o["name"] = nic.name;
            o["kind"] = nic.kind;
            o["gbps"] = tidy(units::Bps_to_gbps(nic.bandwidth_Bps));
            if (nic.numa >= 0) o["numa"] = nic.numa;
            nics.push_back(std::move(o));
        }
        j["nics"] = std::move(nics);
    }
    if (!n.leaf_switch.empty()) j["switch"] = n.leaf_switch;
}

// Length of the run of nodes starting at i that a node group reproduces exactly; sets prefix,
// first number and digit count.
size_t group_run(const std::vector<Node>& nodes, size_t i, std::string& prefix, int& first, int& digits) {
    const std::string& name = nodes[i].name;
    size_t p = name.size();
    while (p > 0 && std::isdigit(static_cast<unsigned char>(name[p - 1]))) --p;
    const size_t ndig = name.size() - p;
    if (p == 0 || ndig == 0 || ndig > 7) return 1;
    prefix = name.substr(0, p);
    first = *to_int<int>(name.substr(p));  // at most 7 digits
    digits = static_cast<int>(ndig);
    if (group_node_name(prefix, first, digits) != name) return 1;
    size_t k = 1;
    while (i + k < nodes.size() && same_body(nodes[i], nodes[i + k]) &&
           nodes[i + k].name == group_node_name(prefix, first + static_cast<int>(k), digits)) {
        ++k;
    }
    return k;
}

ordered_json cluster_json(const Cluster& c) {
    ordered_json j;
    j["name"] = c.name;
    if (!c.region.empty()) j["region"] = c.region;
    if (c.intra_bandwidth_Bps > 0) j["intra_gbps"] = tidy(units::Bps_to_gbps(c.intra_bandwidth_Bps));
    if (c.intra_latency_s > 0) j["intra_latency_ms"] = tidy(units::s_to_ms(c.intra_latency_s));
    ordered_json nodes = ordered_json::array();
    for (size_t i = 0; i < c.nodes.size();) {
        std::string prefix;
        int first = 1, digits = 3;
        const size_t run = group_run(c.nodes, i, prefix, first, digits);
        ordered_json o;
        if (run >= 2) {
            o["name_prefix"] = prefix;
            o["count"] = run;
            if (first != 1) o["first"] = first;
            if (digits != 3) o["digits"] = digits;
        } else {
            o["name"] = c.nodes[i].name;
        }
        write_body(c.nodes[i], o);
        if (run < 2 && !c.nodes[i].gpu_slots.empty()) {
            ordered_json slots = ordered_json::array();
            for (const GpuSlot& s : c.nodes[i].gpu_slots) {
                ordered_json so;
                so["index"] = s.index;
                if (s.numa >= 0) so["numa"] = s.numa;
                so["nvlink_domain"] = s.nvlink_domain;
                if (!s.nearest_nic.empty()) so["nearest_nic"] = s.nearest_nic;
                slots.push_back(std::move(so));
            }
            o["gpu_slots"] = std::move(slots);
        }
        nodes.push_back(std::move(o));
        i += run;
    }
    j["nodes"] = std::move(nodes);
    if (!c.switches.empty()) {
        ordered_json sws = ordered_json::array();
        for (const Switch& s : c.switches) {
            ordered_json o;
            o["name"] = s.name;
            if (!s.switches.empty()) o["switches"] = s.switches;
            // Nodes that name this switch themselves need not be listed again.
            std::vector<std::string> extra;
            for (const std::string& nn : s.nodes) {
                const int ni = c.node_index(nn);
                if (ni < 0 || c.nodes[ni].leaf_switch != s.name) extra.push_back(nn);
            }
            if (!extra.empty()) o["nodes"] = extra;
            if (s.uplink_Bps > 0) o["uplink_gbps"] = tidy(units::Bps_to_gbps(s.uplink_Bps));
            sws.push_back(std::move(o));
        }
        j["switches"] = std::move(sws);
    }
    return j;
}

}  // namespace

std::string topology_to_json(const Topology& t, int indent) {
    ordered_json root;
    root["spiderflow_topology_version"] = Topology::kFormatVersion;
    if (!t.name.empty()) root["name"] = t.name;
    ordered_json clusters = ordered_json::array();
    for (const Cluster& c : t.clusters) clusters.push_back(cluster_json(c));
    root["clusters"] = std::move(clusters);
    ordered_json links = ordered_json::array();
    for (const Link& l : t.links) {
        ordered_json o;
        const auto name = [&](int i) {
            return i >= 0 && static_cast<size_t>(i) < t.clusters.size() ? t.clusters[i].name : std::string("?");
        };
        o["a"] = name(l.a);
        o["b"] = name(l.b);
        o["gbps"] = tidy(units::Bps_to_gbps(l.bandwidth_Bps));
        o["latency_ms"] = tidy(units::s_to_ms(l.latency_s));
        links.push_back(std::move(o));
    }
    root["links"] = std::move(links);
    // Invalid UTF-8 in a name (possible from non-JSON readers) is replaced, never thrown on.
    return root.dump(indent, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

void write_topology_file(const Topology& topology, const std::string& path) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, 0, "", "cannot open for writing");
    out << topology_to_json(topology);
    out.flush();
    if (!out) throw InputError(path, 0, "", "write failed");
}

}  // namespace spiderflow
