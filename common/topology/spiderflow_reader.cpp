// Our topology file format -> Topology. Strict on purpose: unknown keys, wrong types and
// out-of-range figures are errors naming the field path, so a typo never silently becomes a
// default.
#include "common/topology/spiderflow_reader.h"

#include <algorithm>
#include <climits>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

#include "common/topology/readers.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"
#include "common/util/text_file.h"
#include "common/util/units.h"

namespace spiderflow {
namespace {

using jsonread::item;
using jsonread::Object;

// Bounds that keep a hostile or mistyped file from exhausting memory (finalize is O(n^2) in
// clusters); far above any real federation.
constexpr int kMaxClusters = 2048;
constexpr long kMaxNodes = 262144;
constexpr int kMaxGroupCount = 65536;
constexpr double kNoLimit = std::numeric_limits<double>::infinity();

// Nodes read so far from the whole file, against kMaxNodes.
struct NodeCount {
    long total = 0;
    void add(long k, const Object& where) {
        total += k;
        if (total > kMaxNodes) where.fail("more than " + std::to_string(kMaxNodes) + " nodes in the file");
    }
};

// Fields shared by a single node and a node group.
void read_node_body(const Object& j, Node& n) {
    n.gpus = j.integer("gpus", 0, 1024);
    if (n.gpus > 0) n.gpu_type = j.name("gpu_type");
    else n.gpu_type = j.string_or("gpu_type", "");
    if (j.has("nvlink_domain")) n.nvlink_domain_size = j.integer("nvlink_domain", 0, std::max(n.gpus, 1));
    n.leaf_switch = j.string_or("switch", "");
    j.string_or("comment", "");
    if (j.has("nics")) {
        for (const Object& o : j.objects("nics", {"name", "kind", "gbps", "numa"})) {
            Nic nic;
            nic.name = o.name("name");
            nic.kind = o.string_or("kind", "ethernet");
            if (nic.kind != "ib" && nic.kind != "roce" && nic.kind != "ethernet") {
                o.fail_at("kind", "must be \"ib\", \"roce\" or \"ethernet\", not \"" + nic.kind + "\"");
            }
            nic.bandwidth_Bps = units::gbps_to_Bps(o.positive("gbps"));
            if (o.has("numa")) nic.numa = o.integer("numa", -1, 4096);
            n.nics.push_back(std::move(nic));
        }
    }
}

Node read_node(const Object& j, NodeCount& count) {
    j.only({"name", "gpus", "gpu_type", "nvlink_domain", "nics", "switch", "gpu_slots", "comment"});
    Node n;
    n.name = j.name("name");
    read_node_body(j, n);
    if (j.has("gpu_slots")) {
        if (j.array("gpu_slots").size() != static_cast<size_t>(n.gpus)) {
            j.fail_at("gpu_slots", "lists " + std::to_string(j.array("gpu_slots").size()) + " GPUs but gpus is " +
                                       std::to_string(n.gpus));
        }
        for (const Object& o : j.objects("gpu_slots", {"index", "numa", "nvlink_domain", "nearest_nic"})) {
            GpuSlot s;
            s.index = o.integer("index", 0, 1023);
            if (o.has("numa")) s.numa = o.integer("numa", -1, 4096);
            if (o.has("nvlink_domain")) s.nvlink_domain = o.integer("nvlink_domain", 0, 1023);
            s.nearest_nic = o.string_or("nearest_nic", "");
            n.gpu_slots.push_back(std::move(s));
        }
    }
    count.add(1, j);
    return n;
}

// {"name_prefix": "or-gpu", "count": 16, ...} -> or-gpu001 .. or-gpu016.
void read_group(const Object& j, NodeCount& count, std::vector<Node>& out) {
    j.only({"name_prefix", "count", "first", "digits", "gpus", "gpu_type", "nvlink_domain", "nics", "switch",
            "comment"});
    const std::string prefix = j.name("name_prefix");
    const int n = j.integer("count", 1, kMaxGroupCount);
    const int first = j.integer_or("first", 1, 0, 1000000);
    const int digits = j.integer_or("digits", 3, 1, 9);
    Node proto;
    read_node_body(j, proto);
    count.add(n, j);
    for (int k = 0; k < n; ++k) {
        Node node = proto;
        node.name = group_node_name(prefix, first + k, digits);
        out.push_back(std::move(node));
    }
}

Switch read_switch(const Object& j) {
    Switch s;
    s.name = j.name("name");
    j.string_or("comment", "");
    if (j.has("uplink_gbps")) s.uplink_Bps = units::gbps_to_Bps(j.number("uplink_gbps", 0, kNoLimit));
    for (const char* key : {"switches", "nodes"}) {
        if (!j.has(key)) continue;
        auto& dst = std::string_view(key) == "switches" ? s.switches : s.nodes;
        dst = j.strings(key);
        for (size_t i = 0; i < dst.size(); ++i) {
            if (dst[i].empty()) throw InputError(j.source(), 0, item(j.path_of(key), i), "must not be empty");
        }
    }
    return s;
}

Cluster read_cluster(const Object& j, NodeCount& count) {
    Cluster c;
    c.name = j.name("name");
    c.region = j.string_or("region", "");
    j.string_or("comment", "");
    if (j.has("intra_gbps")) c.intra_bandwidth_Bps = units::gbps_to_Bps(j.number("intra_gbps", 0, kNoLimit));
    if (j.has("intra_latency_ms")) c.intra_latency_s = units::ms_to_s(j.number("intra_latency_ms", 0, kNoLimit));

    // Nodes, remembering the file path of each expanded node for later messages.
    std::vector<std::string> node_paths;
    for (const Object& n : j.objects("nodes")) {
        if (n.has("name_prefix")) {
            read_group(n, count, c.nodes);
            while (node_paths.size() < c.nodes.size()) node_paths.push_back(n.path());
        } else {
            c.nodes.push_back(read_node(n, count));
            node_paths.push_back(n.path());
        }
    }
    std::unordered_map<std::string, size_t> by_name;
    for (size_t i = 0; i < c.nodes.size(); ++i) {
        if (!by_name.emplace(c.nodes[i].name, i).second) {
            throw InputError(j.source(), 0, node_paths[i],
                             "duplicate node name '" + c.nodes[i].name + "' in cluster '" + c.name + "'");
        }
    }

    std::unordered_map<std::string, size_t> switch_index;
    if (j.has("switches")) {
        for (const Object& sw : j.objects("switches", {"name", "switches", "nodes", "uplink_gbps", "comment"})) {
            c.switches.push_back(read_switch(sw));
            const Switch& s = c.switches.back();
            if (!switch_index.emplace(s.name, c.switches.size() - 1).second) {
                sw.fail_at("name", "duplicate switch name '" + s.name + "'");
            }
            // A switch may list its nodes; they then hang off it.
            for (size_t k = 0; k < s.nodes.size(); ++k) {
                const std::string at = item(sw.path_of("nodes"), k);
                auto it = by_name.find(s.nodes[k]);
                if (it == by_name.end()) throw InputError(j.source(), 0, at, "unknown node '" + s.nodes[k] + "'");
                Node& node = c.nodes[it->second];
                if (!node.leaf_switch.empty() && node.leaf_switch != s.name) {
                    throw InputError(j.source(), 0, at,
                                     "node '" + s.nodes[k] + "' already hangs off switch '" + node.leaf_switch + "'");
                }
                node.leaf_switch = s.name;
            }
        }
    }
    // Nodes that name their switch join its node list.
    for (size_t i = 0; i < c.nodes.size(); ++i) {
        const Node& node = c.nodes[i];
        if (node.leaf_switch.empty()) continue;
        auto it = switch_index.find(node.leaf_switch);
        if (it == switch_index.end()) {
            throw InputError(j.source(), 0, node_paths[i] + ".switch",
                             "unknown switch '" + node.leaf_switch + "' in cluster '" + c.name + "'");
        }
        auto& list = c.switches[it->second].nodes;
        if (std::find(list.begin(), list.end(), node.name) == list.end()) list.push_back(node.name);
    }
    return c;
}

Link read_link(const Object& j, const std::unordered_map<std::string, int>& names) {
    Link l;
    for (const char* end : {"a", "b"}) {
        const std::string name = j.name(end);
        auto it = names.find(name);
        if (it == names.end()) j.fail_at(end, "unknown cluster '" + name + "'");
        (std::string_view(end) == "a" ? l.a : l.b) = it->second;
    }
    if (l.a == l.b) j.fail("link from a cluster to itself");
    l.bandwidth_Bps = units::gbps_to_Bps(j.positive("gbps"));
    l.latency_s = units::ms_to_s(j.number("latency_ms", 0, kNoLimit));
    j.string_or("comment", "");
    return l;
}

Topology read_topology(const Object& root) {
    if (!root.has("spiderflow_topology_version")) {
        root.fail_at("spiderflow_topology_version",
                     "missing; this reader needs version " + std::to_string(Topology::kFormatVersion));
    }
    const int version = root.integer("spiderflow_topology_version", INT_MIN, INT_MAX);
    if (version != Topology::kFormatVersion) {
        root.fail_at("spiderflow_topology_version", "unsupported version " + std::to_string(version) +
                                                        " (this reader knows " +
                                                        std::to_string(Topology::kFormatVersion) + ")");
    }
    Topology t;
    t.name = root.string_or("name", "");
    root.string_or("comment", "");
    const size_t clusters = root.array("clusters").size();
    if (clusters == 0) root.fail_at("clusters", "needs at least one cluster");
    if (clusters > static_cast<size_t>(kMaxClusters)) {
        root.fail_at("clusters", "more than " + std::to_string(kMaxClusters) + " clusters");
    }
    NodeCount count;
    for (const Object& c : root.objects("clusters", {"name", "region", "comment", "intra_gbps", "intra_latency_ms",
                                                     "nodes", "switches"})) {
        t.clusters.push_back(read_cluster(c, count));
    }
    std::unordered_map<std::string, int> names;
    for (size_t i = 0; i < t.clusters.size(); ++i) {
        if (!names.emplace(t.clusters[i].name, static_cast<int>(i)).second) {
            throw InputError(root.source(), 0, item("clusters", i) + ".name",
                             "duplicate cluster name '" + t.clusters[i].name + "'");
        }
    }
    if (root.has("links")) {
        for (const Object& l : root.objects("links", {"a", "b", "gbps", "latency_ms", "comment"})) {
            t.links.push_back(read_link(l, names));
        }
    }
    t.finalize(root.source());
    return t;
}

}  // namespace

std::string group_node_name(const std::string& prefix, int number, int digits) {
    std::string num = std::to_string(number);
    if (num.size() < static_cast<size_t>(digits)) num.insert(0, static_cast<size_t>(digits) - num.size(), '0');
    return prefix + num;
}

Topology parse_spiderflow_topology(const std::string& text, const std::string& source) {
    const nlohmann::json root = jsonread::parse(text, source);
    return read_topology(
        Object(root, source, "", {"spiderflow_topology_version", "name", "comment", "clusters", "links"}));
}

Topology SpiderflowReader::read(const std::string& path) const {
    return parse(read_text_file(path, "topology file"), path);
}

Topology SpiderflowReader::parse(const std::string& text, const std::string& source) const {
    return parse_spiderflow_topology(text, source);
}

std::unique_ptr<TopologyReader> make_spiderflow_reader() { return std::make_unique<SpiderflowReader>(); }

}  // namespace spiderflow
