// slurm.conf + gres.conf + topology.conf -> one-cluster Topology (see slurm_reader.h).
#include "common/topology/slurm_reader.h"

#include <algorithm>
#include <unordered_map>

#include "common/topology/gpu_alias.h"
#include "common/topology/readers.h"
#include "common/util/errors.h"

namespace spiderflow {
namespace {

// GPU type for one node when its Gres= line is untyped: gres.conf Type=, then Feature=.
std::string gpu_type_for(const slurm::NodeLine& line, const std::string& node, const slurm::GresConf& gres) {
    std::string t = line.gpu_type();
    if (!t.empty()) return canonical_gpu_type(t);
    for (const auto& g : gres.lines)
        if (g.name == "gpu" && !g.type.empty() && g.applies_to(node)) return canonical_gpu_type(g.type);
    for (const auto& f : line.features)
        if (looks_like_gpu_type(f)) return canonical_gpu_type(f);
    return {};
}

}  // namespace

Topology topology_from_slurm_files(const slurm::SlurmFiles& site) {
    const auto& conf = site.slurm;
    if (conf.cluster_name.empty())
        throw InputError(conf.path, 0, "ClusterName", "slurm.conf has no ClusterName= (Slurm requires one)");
    Topology topo;
    topo.name = conf.cluster_name;
    Cluster cluster;
    cluster.name = conf.cluster_name;

    std::unordered_map<std::string, int> defined_at;  // node -> index in cluster.nodes
    std::vector<int> first_line;                       // index -> slurm.conf line
    for (const auto& line : conf.nodes) {
        for (const auto& name : line.names) {
            auto [it, fresh] = defined_at.emplace(name, static_cast<int>(cluster.nodes.size()));
            if (!fresh)
                throw InputError(conf.path, line.line, "NodeName",
                                 "node '" + name + "' is already defined on line " + std::to_string(first_line[it->second]));
            first_line.push_back(line.line);
            Node n;
            n.name = name;
            n.gpus = static_cast<int>(std::min<long>(line.gpu_count(), 1 << 20));
            n.gpu_type = n.gpus > 0 ? gpu_type_for(line, name, site.gres) : std::string();
            cluster.nodes.push_back(std::move(n));
        }
    }

    const auto& tconf = site.topology;
    std::unordered_map<std::string, int> switch_at;
    for (const auto& s : tconf.switches) {
        auto [it, fresh] = switch_at.emplace(s.name, s.line);
        if (!fresh)
            throw InputError(tconf.path, s.line, "SwitchName",
                             "switch '" + s.name + "' is already defined on line " + std::to_string(it->second));
    }
    for (const auto& s : tconf.switches) {
        Switch sw;
        sw.name = s.name;
        for (const auto& child : s.switches) {
            if (!switch_at.count(child))
                throw InputError(tconf.path, s.line, "Switches", "switch '" + s.name + "' lists undefined switch '" + child + "'");
            sw.switches.push_back(child);
        }
        for (const auto& node : s.nodes) {
            auto found = defined_at.find(node);
            if (found == defined_at.end())
                throw InputError(tconf.path, s.line, "Nodes",
                                 "switch '" + s.name + "' lists node '" + node + "', which slurm.conf does not define");
            sw.nodes.push_back(node);
            // A node under two leaf switches keeps the first; checks warn about it.
            auto& leaf = cluster.nodes[static_cast<size_t>(found->second)].leaf_switch;
            if (leaf.empty()) leaf = s.name;
        }
        cluster.switches.push_back(std::move(sw));
    }

    topo.clusters.push_back(std::move(cluster));
    topo.finalize(conf.path);
    return topo;
}

Topology SlurmReader::read(const std::string& path) const { return topology_from_slurm_files(slurm::load_slurm_files(path)); }

Topology SlurmReader::parse(const std::string& text, const std::string& source) const {
    slurm::SlurmFiles site;
    site.slurm = slurm::parse_slurm_conf(text, source);
    return topology_from_slurm_files(site);
}

std::unique_ptr<TopologyReader> make_slurm_reader() { return std::make_unique<SlurmReader>(); }

}  // namespace spiderflow
