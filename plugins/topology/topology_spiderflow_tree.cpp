// topology/spiderflow_tree: topology/tree, except that slurmctld numbers its nodes in the order
// SpiderFlow numbers ranks (the site topology's leaf-switch groups, Cluster::node_order), so a
// plain srun's SLURM_PROCID is the plan's RANK. Slurm 22.05 sorts its node table by name unless
// the topology plugin ranks the nodes, and its topology/tree does not (TopologyParam=
// SwitchAsNodeRank came later; 26.05 orders by topology itself). Everything else is
// topology/tree's, loaded from PluginDir and called unchanged. slurmctld alone ranks nodes.
#include <dlfcn.h>

#include <exception>
#include <string>
#include <unordered_map>

#include "common/topology/reader.h"
#include "plugins/plugin_dir.h"
#include "plugins/slurm_conf_file.h"
#include "plugins/slurm_internal.h"
#include "services/slurmjob/spiderflow_conf.h"
#include "services/slurmjob/submit_site.h"

extern "C" {
extern const char plugin_name[] = "SpiderFlow rank-ordered nodes over topology/tree";
extern const char plugin_type[] = "topology/spiderflow_tree";
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
}

namespace {

void* g_tree = nullptr;
int (*g_build_config)() = nullptr;
int (*g_get_node_addr)(char*, char**, char**) = nullptr;

template <typename F>
F tree_symbol(const char* name) {
    return reinterpret_cast<F>(dlsym(g_tree, name));
}

// Node name -> rank (1-based) in SpiderFlow's order for this cluster; empty when the site
// config or topology cannot be read (`why` says so).
std::unordered_map<std::string, uint32_t> rank_order(std::string* why) {
    std::unordered_map<std::string, uint32_t> rank;
    try {
        using namespace spiderflow;
        const slurmjob::SpiderflowConf conf = slurmjob::load_spiderflow_conf(site_conf_path());
        if (conf.topology.empty()) {
            *why = conf.source + " names no topology";
            return rank;
        }
        const Topology topology = read_topology(conf.topology, conf.topology_format);
        const int here = slurmjob::site_cluster_index(conf, topology);
        if (here < 0) {
            *why = "cluster '" + conf.cluster + "' is not in " + conf.topology;
            return rank;
        }
        const Cluster& cluster = topology.clusters[static_cast<size_t>(here)];
        for (int i : cluster.node_order()) rank.emplace(cluster.nodes[static_cast<size_t>(i)].name, rank.size() + 1);
    } catch (const std::exception& e) {
        *why = e.what();
        rank.clear();
    }
    return rank;
}

}  // namespace

extern "C" {

int init(void) {
    std::string tried, why;
    g_tree = spiderflow::plugin::dlopen_from_plugindir("topology_tree.so", RTLD_LAZY, &tried, &why);
    if (g_tree == nullptr) {
        error("spiderflow: topology/spiderflow_tree: topology/tree not found in PluginDir (%s): %s", tried.c_str(), why.c_str());
        return SLURM_ERROR;
    }
    auto tree_init = tree_symbol<int (*)()>("init");
    g_build_config = tree_symbol<int (*)()>("topo_build_config");
    g_get_node_addr = tree_symbol<int (*)(char*, char**, char**)>("topo_get_node_addr");
    if (tree_init == nullptr || g_build_config == nullptr || g_get_node_addr == nullptr || tree_init() != SLURM_SUCCESS) {
        error("spiderflow: topology/spiderflow_tree: topology/tree lacks its entry points or failed to start");
        return SLURM_ERROR;
    }
    return SLURM_SUCCESS;
}

int fini(void) {
    if (g_tree == nullptr) return SLURM_SUCCESS;
    if (auto tree_fini = tree_symbol<int (*)()>("fini")) tree_fini();
    dlclose(g_tree);
    g_tree = nullptr;
    return SLURM_SUCCESS;
}

int topo_build_config(void) { return g_build_config(); }

int topo_get_node_addr(char* node_name, char** addr, char** pattern) { return g_get_node_addr(node_name, addr, pattern); }

// Called by slurmctld (only) each time it reads slurm.conf, before it sorts its node table by
// node_rank; false leaves Slurm's own order (by name). Our config error costs the ordering, never
// slurmctld: it is logged and Slurm's order stays.
bool topo_generate_node_ranking(void) {
    std::string why;
    const auto rank = rank_order(&why);
    if (rank.empty()) {
        error("spiderflow: topology/spiderflow_tree: nodes keep Slurm's order (by name): %s", why.c_str());
        return false;
    }
    // Nodes our topology does not hold go after, in slurm.conf's order.
    uint32_t known = 0;
    for (int i = 0; i < node_record_count; ++i) {
        node_record_t* node = node_record_table_ptr[i];
        if (node == nullptr) continue;
        auto it = rank.find(node->name);
        node->node_rank = it != rank.end() ? it->second : static_cast<uint32_t>(rank.size()) + 1 + static_cast<uint32_t>(i);
        known += it != rank.end() ? 1 : 0;
    }
    info("spiderflow: topology/spiderflow_tree: %u of %d nodes numbered by leaf switch as SpiderFlow numbers ranks", known,
         node_record_count);
    return true;
}

}  // extern "C"
