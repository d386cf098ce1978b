// Our topology file format -> Topology. Strict on purpose: unknown keys, wrong types and
// out-of-range figures are errors naming the field path, so a typo never silently becomes a
// default.
#include "libspiderflow/topology/spiderflow_reader.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "libspiderflow/topology/readers.h"
#include "libspiderflow/util/errors.h"
#include "libspiderflow/util/json_read.h"
#include "libspiderflow/util/units.h"

namespace spiderflow {
namespace {

using jsonread::join;
using nlohmann::json;

// Bounds that keep a hostile or mistyped file from exhausting memory (finalize is O(n^2) in
// clusters); far above any real federation.
constexpr int kMaxClusters = 2048;
constexpr long kMaxNodes = 262144;
constexpr int kMaxGroupCount = 65536;

class Parser {
public:
    explicit Parser(std::string source) : source_(std::move(source)) {}

    Topology parse(const json& root) {
        expect_object(root, "");
        jsonread::only_keys(root, {"spiderflow_topology_version", "name", "comment", "clusters", "links"}, source_, "");
        if (!root.contains("spiderflow_topology_version")) {
            fail("spiderflow_topology_version", "missing; this reader needs version " +
                                                    std::to_string(Topology::kFormatVersion));
        }
        const int version = get_int(root, "", "spiderflow_topology_version");
        if (version != Topology::kFormatVersion) {
            fail("spiderflow_topology_version", "unsupported version " + std::to_string(version) +
                                                    " (this reader knows " +
                                                    std::to_string(Topology::kFormatVersion) + ")");
        }
        Topology t;
        t.name = opt_string(root, "", "name", "");
        opt_string(root, "", "comment", "");
        const json& clusters = require_array(root, "", "clusters");
        if (clusters.empty()) fail("clusters", "needs at least one cluster");
        if (clusters.size() > static_cast<size_t>(kMaxClusters)) {
            fail("clusters", "more than " + std::to_string(kMaxClusters) + " clusters");
        }
        for (size_t i = 0; i < clusters.size(); ++i) {
            t.clusters.push_back(parse_cluster(clusters[i], idx("clusters", i)));
        }
        std::unordered_map<std::string, int> names;
        for (size_t i = 0; i < t.clusters.size(); ++i) {
            if (!names.emplace(t.clusters[i].name, static_cast<int>(i)).second) {
                fail(idx("clusters", i) + ".name", "duplicate cluster name '" + t.clusters[i].name + "'");
            }
        }
        if (root.contains("links")) {
            const json& links = require_array(root, "", "links");
            for (size_t i = 0; i < links.size(); ++i) t.links.push_back(parse_link(links[i], idx("links", i), names));
        }
        t.finalize(source_);
        return t;
    }

private:
    std::string source_;
    long total_nodes_ = 0;

    [[noreturn]] void fail(const std::string& field, const std::string& what) const {
        throw InputError(source_, 0, field, what);
    }

    static std::string idx(const std::string& base, size_t i) { return base + "[" + std::to_string(i) + "]"; }

    void expect_object(const json& j, const std::string& path) const {
        if (!j.is_object()) fail(path.empty() ? "(top level)" : path, std::string("must be an object, not ") + j.type_name());
    }

    const json& require(const json& j, const std::string& path, const char* key) const {
        auto it = j.find(key);
        if (it == j.end()) fail(join(path, key), "missing");
        return *it;
    }

    const json& require_array(const json& j, const std::string& path, const char* key) const {
        const json& v = require(j, path, key);
        if (!v.is_array()) fail(join(path, key), std::string("must be an array, not ") + v.type_name());
        return v;
    }

    std::string get_string(const json& j, const std::string& path, const char* key) const {
        const json& v = require(j, path, key);
        if (!v.is_string()) fail(join(path, key), std::string("must be a string, not ") + v.type_name());
        return v.get<std::string>();
    }

    std::string opt_string(const json& j, const std::string& path, const char* key, const std::string& dflt) const {
        return j.contains(key) ? get_string(j, path, key) : dflt;
    }

    std::string get_name(const json& j, const std::string& path, const char* key) const {
        std::string s = get_string(j, path, key);
        if (s.empty()) fail(join(path, key), "must not be empty");
        return s;
    }

    int get_int(const json& j, const std::string& path, const char* key) const {
        const json& v = require(j, path, key);
        const std::string f = join(path, key);
        if (v.is_number_unsigned()) {
            if (v.get<uint64_t>() > static_cast<uint64_t>(INT_MAX)) fail(f, "number too large");
            return static_cast<int>(v.get<uint64_t>());
        }
        if (v.is_number_integer()) {
            const int64_t x = v.get<int64_t>();
            if (x < INT_MIN || x > INT_MAX) fail(f, "number out of range");
            return static_cast<int>(x);
        }
        fail(f, std::string("must be an integer, not ") + v.type_name());
    }

    int get_int_in(const json& j, const std::string& path, const char* key, int lo, int hi) const {
        const int x = get_int(j, path, key);
        if (x < lo || x > hi) {
            fail(join(path, key), "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", not " +
                                      std::to_string(x));
        }
        return x;
    }

    double get_number(const json& j, const std::string& path, const char* key) const {
        const json& v = require(j, path, key);
        if (!v.is_number()) fail(join(path, key), std::string("must be a number, not ") + v.type_name());
        const double x = v.get<double>();
        if (!std::isfinite(x)) fail(join(path, key), "must be finite");
        return x;
    }

    double get_positive(const json& j, const std::string& path, const char* key) const {
        const double x = get_number(j, path, key);
        if (x <= 0) fail(join(path, key), "must be > 0");
        return x;
    }

    double get_nonnegative(const json& j, const std::string& path, const char* key) const {
        const double x = get_number(j, path, key);
        if (x < 0) fail(join(path, key), "must be >= 0");
        return x;
    }

    Cluster parse_cluster(const json& j, const std::string& path) {
        expect_object(j, path);
        jsonread::only_keys(j, {"name", "region", "comment", "intra_gbps", "intra_latency_ms", "nodes", "switches"},
                            source_, path);
        Cluster c;
        c.name = get_name(j, path, "name");
        c.region = opt_string(j, path, "region", "");
        opt_string(j, path, "comment", "");
        if (j.contains("intra_gbps")) c.intra_bandwidth_Bps = units::gbps_to_Bps(get_nonnegative(j, path, "intra_gbps"));
        if (j.contains("intra_latency_ms")) c.intra_latency_s = units::ms_to_s(get_nonnegative(j, path, "intra_latency_ms"));

        // Nodes, remembering the file path of each expanded node for later messages.
        std::vector<std::string> node_paths;
        const json& nodes = require_array(j, path, "nodes");
        for (size_t i = 0; i < nodes.size(); ++i) {
            const std::string npath = idx(join(path, "nodes"), i);
            expect_object(nodes[i], npath);
            if (nodes[i].contains("name_prefix")) {
                parse_group(nodes[i], npath, c.nodes);
                while (node_paths.size() < c.nodes.size()) node_paths.push_back(npath);
            } else {
                c.nodes.push_back(parse_node(nodes[i], npath));
                node_paths.push_back(npath);
            }
        }
        std::unordered_map<std::string, size_t> by_name;
        for (size_t i = 0; i < c.nodes.size(); ++i) {
            if (!by_name.emplace(c.nodes[i].name, i).second) {
                fail(node_paths[i], "duplicate node name '" + c.nodes[i].name + "' in cluster '" + c.name + "'");
            }
        }

        std::unordered_map<std::string, size_t> switch_index;
        if (j.contains("switches")) {
            const json& sw = require_array(j, path, "switches");
            for (size_t i = 0; i < sw.size(); ++i) {
                const std::string spath = idx(join(path, "switches"), i);
                c.switches.push_back(parse_switch(sw[i], spath));
                if (!switch_index.emplace(c.switches.back().name, i).second) {
                    fail(spath + ".name", "duplicate switch name '" + c.switches.back().name + "'");
                }
                // A switch may list its nodes; they then hang off it.
                for (size_t k = 0; k < c.switches.back().nodes.size(); ++k) {
                    const std::string& nn = c.switches.back().nodes[k];
                    auto it = by_name.find(nn);
                    if (it == by_name.end()) fail(idx(spath + ".nodes", k), "unknown node '" + nn + "'");
                    Node& node = c.nodes[it->second];
                    if (!node.leaf_switch.empty() && node.leaf_switch != c.switches.back().name) {
                        fail(idx(spath + ".nodes", k), "node '" + nn + "' already hangs off switch '" +
                                                            node.leaf_switch + "'");
                    }
                    node.leaf_switch = c.switches.back().name;
                }
            }
        }
        // Nodes that name their switch join its node list.
        for (size_t i = 0; i < c.nodes.size(); ++i) {
            const Node& node = c.nodes[i];
            if (node.leaf_switch.empty()) continue;
            auto it = switch_index.find(node.leaf_switch);
            if (it == switch_index.end()) {
                fail(node_paths[i] + ".switch", "unknown switch '" + node.leaf_switch + "' in cluster '" + c.name + "'");
            }
            auto& list = c.switches[it->second].nodes;
            if (std::find(list.begin(), list.end(), node.name) == list.end()) list.push_back(node.name);
        }
        return c;
    }

    // Fields shared by a single node and a node group.
    void parse_node_body(const json& j, const std::string& path, Node& n) {
        n.gpus = get_int_in(j, path, "gpus", 0, 1024);
        if (n.gpus > 0) n.gpu_type = get_name(j, path, "gpu_type");
        else n.gpu_type = opt_string(j, path, "gpu_type", "");
        if (j.contains("nvlink_domain")) n.nvlink_domain_size = get_int_in(j, path, "nvlink_domain", 0, std::max(n.gpus, 1));
        n.leaf_switch = opt_string(j, path, "switch", "");
        opt_string(j, path, "comment", "");
        if (j.contains("nics")) {
            const json& nics = require_array(j, path, "nics");
            for (size_t i = 0; i < nics.size(); ++i) n.nics.push_back(parse_nic(nics[i], idx(join(path, "nics"), i)));
        }
    }

    Node parse_node(const json& j, const std::string& path) {
        jsonread::only_keys(j, {"name", "gpus", "gpu_type", "nvlink_domain", "nics", "switch", "gpu_slots", "comment"},
                            source_, path);
        Node n;
        n.name = get_name(j, path, "name");
        parse_node_body(j, path, n);
        if (j.contains("gpu_slots")) {
            const json& slots = require_array(j, path, "gpu_slots");
            if (slots.size() != static_cast<size_t>(n.gpus)) {
                fail(join(path, "gpu_slots"), "lists " + std::to_string(slots.size()) + " GPUs but gpus is " +
                                                  std::to_string(n.gpus));
            }
            for (size_t i = 0; i < slots.size(); ++i) {
                n.gpu_slots.push_back(parse_slot(slots[i], idx(join(path, "gpu_slots"), i)));
            }
        }
        count_nodes(1, path);
        return n;
    }

    // {"name_prefix": "or-gpu", "count": 16, ...} -> or-gpu001 .. or-gpu016.
    void parse_group(const json& j, const std::string& path, std::vector<Node>& out) {
        jsonread::only_keys(j, {"name_prefix", "count", "first", "digits", "gpus", "gpu_type", "nvlink_domain", "nics",
                                "switch", "comment"},
                            source_, path);
        const std::string prefix = get_name(j, path, "name_prefix");
        const int count = get_int_in(j, path, "count", 1, kMaxGroupCount);
        const int first = j.contains("first") ? get_int_in(j, path, "first", 0, 1000000) : 1;
        const int digits = j.contains("digits") ? get_int_in(j, path, "digits", 1, 9) : 3;
        Node proto;
        parse_node_body(j, path, proto);
        count_nodes(count, path);
        for (int k = 0; k < count; ++k) {
            Node n = proto;
            n.name = group_node_name(prefix, first + k, digits);
            out.push_back(std::move(n));
        }
    }

    void count_nodes(long k, const std::string& path) {
        total_nodes_ += k;
        if (total_nodes_ > kMaxNodes) fail(path, "more than " + std::to_string(kMaxNodes) + " nodes in the file");
    }

    Nic parse_nic(const json& j, const std::string& path) const {
        expect_object(j, path);
        jsonread::only_keys(j, {"name", "kind", "gbps", "numa"}, source_, path);
        Nic nic;
        nic.name = get_name(j, path, "name");
        nic.kind = opt_string(j, path, "kind", "ethernet");
        if (nic.kind != "ib" && nic.kind != "roce" && nic.kind != "ethernet") {
            fail(join(path, "kind"), "must be \"ib\", \"roce\" or \"ethernet\", not \"" + nic.kind + "\"");
        }
        nic.bandwidth_Bps = units::gbps_to_Bps(get_positive(j, path, "gbps"));
        if (j.contains("numa")) nic.numa = get_int_in(j, path, "numa", -1, 4096);
        return nic;
    }

    GpuSlot parse_slot(const json& j, const std::string& path) const {
        expect_object(j, path);
        jsonread::only_keys(j, {"index", "numa", "nvlink_domain", "nearest_nic"}, source_, path);
        GpuSlot s;
        s.index = get_int_in(j, path, "index", 0, 1023);
        if (j.contains("numa")) s.numa = get_int_in(j, path, "numa", -1, 4096);
        if (j.contains("nvlink_domain")) s.nvlink_domain = get_int_in(j, path, "nvlink_domain", 0, 1023);
        s.nearest_nic = opt_string(j, path, "nearest_nic", "");
        return s;
    }

    Switch parse_switch(const json& j, const std::string& path) const {
        expect_object(j, path);
        jsonread::only_keys(j, {"name", "switches", "nodes", "uplink_gbps", "comment"}, source_, path);
        Switch s;
        s.name = get_name(j, path, "name");
        opt_string(j, path, "comment", "");
        if (j.contains("uplink_gbps")) s.uplink_Bps = units::gbps_to_Bps(get_nonnegative(j, path, "uplink_gbps"));
        for (const char* key : {"switches", "nodes"}) {
            if (!j.contains(key)) continue;
            const json& list = require_array(j, path, key);
            auto& dst = std::string_view(key) == "switches" ? s.switches : s.nodes;
            for (size_t i = 0; i < list.size(); ++i) {
                if (!list[i].is_string() || list[i].get_ref<const std::string&>().empty()) {
                    fail(idx(join(path, key), i), "must be a non-empty string");
                }
                dst.push_back(list[i].get<std::string>());
            }
        }
        return s;
    }

    Link parse_link(const json& j, const std::string& path, const std::unordered_map<std::string, int>& names) const {
        expect_object(j, path);
        jsonread::only_keys(j, {"a", "b", "gbps", "latency_ms", "comment"}, source_, path);
        Link l;
        for (const char* end : {"a", "b"}) {
            const std::string name = get_name(j, path, end);
            auto it = names.find(name);
            if (it == names.end()) fail(join(path, end), "unknown cluster '" + name + "'");
            (std::string_view(end) == "a" ? l.a : l.b) = it->second;
        }
        if (l.a == l.b) fail(path, "link from a cluster to itself");
        l.bandwidth_Bps = units::gbps_to_Bps(get_positive(j, path, "gbps"));
        l.latency_s = units::ms_to_s(get_nonnegative(j, path, "latency_ms"));
        opt_string(j, path, "comment", "");
        return l;
    }
};

}  // namespace

std::string group_node_name(const std::string& prefix, int number, int digits) {
    std::string num = std::to_string(number);
    if (num.size() < static_cast<size_t>(digits)) num.insert(0, static_cast<size_t>(digits) - num.size(), '0');
    return prefix + num;
}

Topology parse_spiderflow_topology(const std::string& text, const std::string& source) {
    const json root = jsonread::parse(text, source);
    return Parser(source).parse(root);
}

Topology SpiderflowReader::read(const std::string& path) const {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "", "cannot open topology file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse(ss.str(), path);
}

Topology SpiderflowReader::parse(const std::string& text, const std::string& source) const {
    return parse_spiderflow_topology(text, source);
}

std::unique_ptr<TopologyReader> make_spiderflow_reader() { return std::make_unique<SpiderflowReader>(); }

}  // namespace spiderflow
