#include "common/site/node_list.h"

#include <climits>

#include "common/topology/slurm_conf.h"
#include "common/util/errors.h"
#include "common/util/parse_number.h"

namespace spiderflow {
namespace {

// Splits on commas outside brackets: "a[1-2,5]=8,b=4" -> "a[1-2,5]=8", "b=4".
std::vector<std::string> split_terms(const std::string& text) {
    std::vector<std::string> out(1);
    int depth = 0;
    for (char ch : text) {
        if (ch == '[') ++depth;
        if (ch == ']') --depth;
        if (ch == ',' && depth == 0) out.emplace_back();
        else out.back() += ch;
    }
    return out;
}

// The cluster holding `node`: `cluster` when given, else the one cluster that has it.
std::string cluster_of(const std::string& cluster, const std::string& node, const Topology& topo,
                       const std::string& source) {
    if (!cluster.empty()) {
        const int c = topo.cluster_index(cluster);
        if (c < 0) throw InputError(source, 0, "", "unknown cluster '" + cluster + "'");
        if (topo.clusters[static_cast<size_t>(c)].node_index(node) < 0) {
            throw InputError(source, 0, "", "unknown node '" + node + "' in cluster '" + cluster + "'");
        }
        return cluster;
    }
    std::string found;
    for (const Cluster& c : topo.clusters) {
        if (c.node_index(node) < 0) continue;
        if (!found.empty()) {
            throw InputError(source, 0, "", "node '" + node + "' is in clusters '" + found + "' and '" + c.name +
                                                "': write CLUSTER:NODE");
        }
        found = c.name;
    }
    if (found.empty()) throw InputError(source, 0, "", "unknown node '" + node + "' in topology '" + topo.name + "'");
    return found;
}

// "cluster:rest" -> cluster (empty without a prefix); a colon inside brackets is no prefix.
std::string take_prefix(std::string& text) {
    const auto colon = text.find(':');
    if (colon == std::string::npos || text.find('[') < colon) return "";
    std::string cluster = text.substr(0, colon);
    text = text.substr(colon + 1);
    return cluster;
}

int parse_count(const std::string& s, const std::string& term, const std::string& source) {
    const auto v = to_int<int>(s, 0);
    if (!v) throw InputError(source, 0, "", "'" + term + "': GPU count must be an integer >= 0");
    return *v;
}

}  // namespace

NodeName parse_node_name(const std::string& text, const Topology& topology, const std::string& source) {
    std::string rest = text;
    const std::string cluster = take_prefix(rest);
    if (rest.empty()) throw InputError(source, 0, "", "'" + text + "': no node name");
    return {cluster_of(cluster, rest, topology, source), rest};
}

std::vector<NodeShare> parse_node_shares(const std::string& text, const Topology& topology, const std::string& source) {
    std::vector<NodeShare> out;
    std::string cluster;
    for (const std::string& term : split_terms(text)) {
        std::string rest = term;
        if (std::string c = take_prefix(rest); !c.empty()) cluster = c;
        const auto eq = rest.rfind('=');
        if (rest.empty() || eq == std::string::npos || eq == 0) {
            throw InputError(source, 0, "", "'" + term + "': expected [CLUSTER:]NODES=GPUS");
        }
        const int gpus = parse_count(rest.substr(eq + 1), term, source);
        for (const std::string& node : slurm::expand_hostlist(rest.substr(0, eq), source)) {
            out.push_back({{cluster_of(cluster, node, topology, source), node}, gpus, 0});
        }
    }
    return out;
}

}  // namespace spiderflow
