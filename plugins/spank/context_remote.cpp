// slurmstepd: at step start read the topology once; in each task set the rank variables in
// topology order, the parallel coordinates and the NCCL/c10d environment.
#include <cstdlib>
#include <exception>

#include "common/plan/nccl_env.h"
#include "common/topology/reader.h"
#include "plugins/common/hostlist.h"
#include "plugins/common/job_traffic.h"
#include "plugins/common/rank_order.h"
#include "plugins/spank/spank_state.h"

namespace spiderflow::plugin::spank {
namespace {

// job_submit's values reach the batch step as SLURM_SPANK_<name>; steps started by
// `spiderflow launch` also carry the plain name.
std::string planned(spank_t sp, const std::string& name) {
    std::string v = job_getenv(sp, ("SLURM_SPANK_" + name).c_str());
    return v.empty() ? job_getenv(sp, name.c_str()) : v;
}

int to_int(const std::string& s, int fallback) {
    if (s.empty()) return fallback;
    char* end = nullptr;
    const long v = std::strtol(s.c_str(), &end, 10);
    return *end == '\0' ? static_cast<int>(v) : fallback;
}

void set(spank_t sp, const std::string& k, const std::string& v, bool overwrite) {
    if (spank_setenv(sp, k.c_str(), v.c_str(), overwrite ? 1 : 0) != ESPANK_SUCCESS && overwrite) {
        slurm_error("spiderflow: cannot set %s", k.c_str());
    }
}

}  // namespace

int remote_init(spank_t sp) {
    (void)sp;
    const SiteConfig& cfg = plugin_state().config;
    if (!cfg.enabled || cfg.topology.empty()) return 0;
    try {
        plugin_state().topology = std::make_shared<const Topology>(read_topology(cfg.topology, cfg.topology_format));
    } catch (const std::exception& e) {
        // Ranks then follow Slurm's order; the job still runs.
        slurm_error("spiderflow: topology %s unusable, ranks follow Slurm's order: %s", cfg.topology.c_str(), e.what());
    }
    return 0;
}

int remote_task_init(spank_t sp) {
    if (spank_remote(sp) != 1) return 0;
    const PluginState& st = plugin_state();
    if (!st.config.enabled) return 0;
    const int tp = to_int(planned(sp, "SPIDERFLOW_TP"), 0);
    const int pp = to_int(planned(sp, "SPIDERFLOW_PP"), 0);
    const int dp = to_int(planned(sp, "SPIDERFLOW_DP"), 0);
    if (tp <= 0 && !st.options.any()) return 0;  // not a SpiderFlow job: leave it alone

    std::string nodelist = job_getenv(sp, "SLURM_STEP_NODELIST");
    if (nodelist.empty()) nodelist = job_getenv(sp, "SLURM_JOB_NODELIST");
    std::string tasks = job_getenv(sp, "SLURM_STEP_TASKS_PER_NODE");
    if (tasks.empty()) tasks = job_getenv(sp, "SLURM_TASKS_PER_NODE");
    const std::string me = job_getenv(sp, "SLURMD_NODENAME");
    int local_id = 0;
    if (spank_get_item(sp, S_TASK_ID, &local_id) != ESPANK_SUCCESS) local_id = to_int(job_getenv(sp, "SLURM_LOCALID"), 0);

    const std::vector<std::string> slurm_nodes = expand_hostlist(nodelist);
    const std::vector<int> per_node = expand_tasks_per_node(tasks);
    const Topology* topo = st.topology.get();
    const CommFacts facts = comm_facts_from_env([&](const std::string& name) { return planned(sp, name); });
    const std::vector<std::string> order = topology_node_order(slurm_nodes, topo, facts.clusters);
    const NodeLocation where = locate_node(topo, me);
    const Node* node = where.cluster >= 0 ? &topo->clusters[static_cast<size_t>(where.cluster)].nodes[static_cast<size_t>(where.node)]
                                          : nullptr;
    int local_count = 0;
    for (size_t i = 0; i < slurm_nodes.size() && i < per_node.size(); ++i) {
        if (slurm_nodes[i] == me) local_count = per_node[i];
    }
    const TaskRanks r = compute_task_ranks(order, slurm_nodes, per_node, me, local_id, gpu_order(node, local_count));

    uint32_t job_id = 0;
    spank_get_item(sp, S_JOB_ID, &job_id);
    const int port = st.config.master_port_base + static_cast<int>(job_id % static_cast<uint32_t>(st.config.master_port_span));
    set(sp, "RANK", std::to_string(r.rank), true);
    set(sp, "LOCAL_RANK", std::to_string(r.local_rank), true);
    set(sp, "WORLD_SIZE", std::to_string(r.world_size), true);
    set(sp, "LOCAL_WORLD_SIZE", std::to_string(local_count), true);
    set(sp, "MASTER_ADDR", r.master_addr, true);
    set(sp, "MASTER_PORT", std::to_string(port), true);
    set(sp, "SPIDERFLOW_NODE_RANK", std::to_string(r.node_position), true);
    if (tp > 0 && pp > 0 && dp > 0) {
        set(sp, "SPIDERFLOW_TP", std::to_string(tp), true);
        set(sp, "SPIDERFLOW_PP", std::to_string(pp), true);
        set(sp, "SPIDERFLOW_DP", std::to_string(dp), true);
        if (r.world_size == tp * pp * dp) {
            const ParallelCoords c = coords_of_rank(r.rank, tp, pp, dp);
            set(sp, "SPIDERFLOW_TP_RANK", std::to_string(c.tp), true);
            set(sp, "SPIDERFLOW_PP_RANK", std::to_string(c.pp), true);
            set(sp, "SPIDERFLOW_DP_RANK", std::to_string(c.dp), true);
        }
    }

    const NcclSettings site = nccl_settings(st.config);
    EnvList env = nccl_env(facts, node, r.local_rank, site);
    try {
        // The job's traffic class, as `spiderflow launch` exports it (plugins/common/job_traffic.h).
        for (const auto& name : apply_job_class_env(env, st.config, planned(sp, kTrafficLevelVar)))
            spank_unsetenv(sp, name.c_str());
    } catch (const std::exception& e) {
        slurm_error("spiderflow: no traffic class for the job: %s", e.what());
    }
    for (const auto& [k, v] : env) set(sp, k, v, st.config.site_env_wins);
    return 0;
}

}  // namespace spiderflow::plugin::spank
