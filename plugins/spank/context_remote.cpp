// slurmstepd: at step start read the topology once; before the tasks fork work out the step's
// rank layout (the plan's, when the job carries it); in each task set the rank variables, the
// parallel coordinates and the NCCL/c10d environment. Only a step of the plan's world size gets
// ranks: the batch step and small helper steps run as plain Slurm steps.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>

extern "C" {
#include <slurm/slurm.h>
}

#include "common/plan/nccl_env.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_transport.h"
#include "common/topology/reader.h"
#include "common/util/parse_number.h"
#include "common/util/split_list.h"
#include "plugins/spank/stepd_hooks.h"
#include "plugins/spank/stepd_state.h"
#include "services/launch/launch_contract.h"
#include "services/launch/launch_env.h"
#include "services/slurmjob/hostlist.h"
#include "services/slurmjob/job_traffic.h"

namespace spiderflow::plugin::spank {
namespace {

// A number Slurm or the plan put in the environment; `fallback` when it is absent or not one.
int to_int(const std::string& s, int fallback) { return spiderflow::to_int<int>(s).value_or(fallback); }

void set(spank_t sp, const std::string& k, const std::string& v, bool overwrite) {
    if (spank_setenv(sp, k.c_str(), v.c_str(), overwrite ? 1 : 0) != ESPANK_SUCCESS && overwrite) {
        slurm_error("spiderflow: cannot set %s", k.c_str());
    }
}

// A line on the task's own stderr (the user's output), not only in slurmd's log.
void tell_task(const std::string& text) { dprintf(STDERR_FILENO, "spiderflow: %s\n", text.c_str()); }

// The address Slurm itself uses for a node (NodeAddr): a NodeName need not resolve.
std::string node_address(const std::string& node) {
    node_info_msg_t* info = nullptr;
    std::string addr = node;
    if (slurm_load_node_single(&info, const_cast<char*>(node.c_str()), SHOW_ALL) == SLURM_SUCCESS && info != nullptr) {
        if (info->record_count > 0 && info->node_array[0].node_addr != nullptr && *info->node_array[0].node_addr) {
            addr = info->node_array[0].node_addr;
        }
        slurm_free_node_info_msg(info);
    } else {
        slurm_error("spiderflow: cannot ask slurmctld for %s's address; MASTER_ADDR is its node name", node.c_str());
    }
    return addr;
}

std::vector<RankSlot> layout_of(spank_t sp, const std::vector<std::string>& nodes, const std::vector<int>& per_node,
                                const Topology* topo, std::string* note) {
    const std::string data = planned_getenv(sp, env::kPlanData);
    if (!data.empty() && topo != nullptr) {
        try {
            const Plan plan = plan_from_json(decode_plan_text(data, "job", env::kPlanData), "job plan", topo);
            return plan_rank_slots(plan, *topo, nodes);
        } catch (const std::exception& e) {
            *note = std::string("the job's plan does not fit this step (") + e.what() + "); ranks follow the topology";
        }
    }
    const CommFacts facts = comm_facts_from_env([&](const std::string& name) { return planned_getenv(sp, name); });
    return ordered_rank_slots(nodes, per_node, topo, facts.clusters);
}

std::vector<std::string> node_order_of(const StepLayout& layout) {
    std::vector<std::string> order;
    for (const auto& slot : layout.slots) {
        bool seen = false;
        for (const auto& n : order) seen = seen || n == slot.node;
        if (!seen) order.push_back(slot.node);
    }
    return order;
}

int master_port(const SpiderflowConf& cfg, spank_t sp) {
    uint32_t job_id = 0;
    spank_get_item(sp, S_JOB_ID, &job_id);
    return cfg.master_port_base + static_cast<int>(job_id % static_cast<uint32_t>(cfg.master_port_span));
}

// A launcher task (torchrun) gets where it sits and whom to meet; it numbers the ranks itself.
int launcher_task_init(spank_t sp, const StepLayout& layout, const std::string& me) {
    const std::vector<std::string> order = node_order_of(layout);
    int node_rank = -1;
    for (size_t i = 0; i < order.size(); ++i) {
        if (order[i] == me) node_rank = static_cast<int>(i);
    }
    if (node_rank < 0) {
        tell_task("node " + me + " is not in the plan's layout; the launcher starts without SpiderFlow's node rank");
        return 0;
    }
    set(sp, env::kNodeRank, std::to_string(node_rank), true);
    set(sp, "MASTER_ADDR", layout.master_addr, true);
    set(sp, "MASTER_PORT", std::to_string(master_port(plugin_state().config, sp)), true);
    return 0;
}

// A step of one part of a cross-site job: the part's own ranks in Slurm's (topology-grouped)
// order, numbered from the part's rank base, in the world every part shares. Launcher steps
// (one torchrun per node) are not handled across sites: the launcher gets no node rank here.
int cross_site_part_init(spank_t sp, const std::vector<std::string>& nodes, const std::vector<int>& per_node, int step_world,
                         int plan_world, StepLayout* out) {
    const int base = to_int(planned_getenv(sp, env::kRankBase), -1);
    const int world = to_int(planned_getenv(sp, env::kWorldSize), 0);
    if (base < 0 || world <= 0 || world != plan_world || base + step_world > world) {
        if (step_world > 1) {
            out->note = "this cross-site part's place in the world (rank base " + planned_getenv(sp, env::kRankBase) + ", world " +
                        planned_getenv(sp, env::kWorldSize) + ") does not fit its " + std::to_string(step_world) +
                        " tasks and the plan's world of " + std::to_string(plan_world) + ": no SpiderFlow ranks in it";
        }
        return 0;
    }
    const CommFacts facts = comm_facts_from_env([&](const std::string& name) { return planned_getenv(sp, name); });
    out->slots = ordered_rank_slots(nodes, per_node, stepd_state().topology.get(), facts.clusters);
    if (out->slots.size() != static_cast<size_t>(step_world)) {
        out->slots.clear();
        return 0;
    }
    out->rank_base = base;
    out->world = world;
    out->master_addr = planned_getenv(sp, env::kMasterAddr);
    if (out->master_addr.empty()) out->master_addr = job_getenv(sp, "MASTER_ADDR");
    out->master_port = to_int(planned_getenv(sp, env::kMasterPort), 0);
    out->planned = !out->master_addr.empty() && out->master_port > 0;
    if (!out->planned) out->note = "this cross-site part has no master address or port: no SpiderFlow ranks in it";
    return 0;
}

}  // namespace

int remote_init(spank_t sp) {
    (void)sp;
    const SpiderflowConf& cfg = plugin_state().config;
    if (!cfg.enabled || cfg.topology.empty()) return 0;
    try {
        stepd_state().topology = std::make_shared<const Topology>(read_topology(cfg.topology, cfg.topology_format));
    } catch (const std::exception& e) {
        // Ranks then follow Slurm's order; the job still runs.
        slurm_error("spiderflow: topology %s unusable, ranks follow Slurm's order: %s", cfg.topology.c_str(), e.what());
    }
    return 0;
}

int remote_step_layout(spank_t sp) {
    if (spank_remote(sp) != 1) return 0;
    const PluginState& st = plugin_state();
    StepLayout& out = stepd_state().layout;
    out = StepLayout{};
    const int tp = to_int(planned_getenv(sp, env::kTp), 0);
    const int pp = to_int(planned_getenv(sp, env::kPp), 0);
    const int dp = to_int(planned_getenv(sp, env::kDp), 0);
    if (tp <= 0 && !st.options.any()) return 0;  // not a SpiderFlow job: leave it alone
    if (!st.config.enabled) {
        if (!st.config_error.empty()) out.note = "SpiderFlow is off on this node (" + st.config_error + "); tasks start with Slurm's variables only";
        return 0;
    }
    std::string nodelist = job_getenv(sp, "SLURM_STEP_NODELIST");
    if (nodelist.empty()) nodelist = job_getenv(sp, "SLURM_JOB_NODELIST");
    std::string tasks = job_getenv(sp, "SLURM_STEP_TASKS_PER_NODE");
    if (tasks.empty()) tasks = job_getenv(sp, "SLURM_TASKS_PER_NODE");
    const std::vector<std::string> nodes = expand_hostlist(nodelist);
    const std::vector<int> per_node = expand_tasks_per_node(tasks);
    // The batch step and salloc's interactive step run the user's shell, not the training world.
    uint32_t step_id = 0;
    if (spank_get_item(sp, S_JOB_STEPID, &step_id) == ESPANK_SUCCESS &&
        (step_id == SLURM_BATCH_SCRIPT || step_id == SLURM_INTERACTIVE_STEP)) {
        return 0;
    }
    // The step's own task count: the batch step sees the job's node and task lists in its
    // environment but is one task, and must not pose as rank 0 of the training world.
    uint32_t step_tasks = 0;
    int world = 0;
    for (int n : per_node) world += n;
    if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &step_tasks) == ESPANK_SUCCESS && static_cast<int>(step_tasks) != world) {
        if (world > 0 && tp > 0 && step_tasks > 1) {
            out.note = "this step's task list does not match its " + std::to_string(step_tasks) + " tasks: no SpiderFlow ranks in it";
        }
        return 0;
    }
    const int plan_world = tp * pp * dp;
    if (!planned_getenv(sp, env::kRankBase).empty()) return cross_site_part_init(sp, nodes, per_node, world, plan_world, &out);
    // One task per node that starts the node's ranks itself (torchrun): node ranks, no RANK.
    const bool launchers = tp > 0 && pp > 0 && dp > 0 && world == static_cast<int>(nodes.size()) && world > 0 &&
                           plan_world % world == 0 && plan_world != world;
    if (tp <= 0 || pp <= 0 || dp <= 0 || (world != plan_world && !launchers)) {
        // Helper steps (the batch step, a one-node srun) are not part of the training world.
        if (world > 1 && tp > 0) {
            out.note = "this step has " + std::to_string(world) + " tasks, the plan's world is " + std::to_string(tp * pp * dp) +
                       ": no SpiderFlow ranks in it";
        }
        return 0;
    }
    const std::vector<int> ranks_per_node =
        launchers ? std::vector<int>(nodes.size(), plan_world / world) : per_node;
    out.slots = layout_of(sp, nodes, ranks_per_node, stepd_state().topology.get(), &out.note);
    out.launchers = launchers;
    if (out.slots.size() != static_cast<size_t>(plan_world)) {
        out.note = "the plan's layout does not match this step; tasks start with Slurm's variables only";
        out.slots.clear();
        return 0;
    }
    out.master_addr = node_address(out.slots.front().node);
    out.planned = true;
    return 0;
}

int remote_task_init(spank_t sp) {
    if (spank_remote(sp) != 1) return 0;
    if (!stepd_state().refusal.empty()) {
        tell_task(stepd_state().refusal);
        return kStepdEndTask;
    }
    const PluginState& st = plugin_state();
    const StepLayout& layout = stepd_state().layout;
    int local_id = 0, global_id = 0;
    if (spank_get_item(sp, S_TASK_ID, &local_id) != ESPANK_SUCCESS) local_id = to_int(job_getenv(sp, "SLURM_LOCALID"), 0);
    if (spank_get_item(sp, S_TASK_GLOBAL_ID, &global_id) != ESPANK_SUCCESS) global_id = to_int(job_getenv(sp, "SLURM_PROCID"), 0);
    if (!layout.note.empty() && global_id == 0) tell_task(layout.note);
    // `spiderflow launch` and `job-plan` in the job read the site config this plugin read
    // (plugstack.conf's conf=, which the user's shell does not know): in a cross-site part that is
    // where the federation's topology comes from.
    if (st.config.enabled && !st.config.source.empty() && to_int(planned_getenv(sp, env::kTp), 0) > 0) {
        set(sp, env::kConf, st.config.source, false);
    }
    if (!layout.planned) return 0;

    const std::string me = job_getenv(sp, "SLURMD_NODENAME");
    if (layout.launchers) return launcher_task_init(sp, layout, me);
    std::vector<int> mine;  // the ranks on this node, ascending
    for (size_t r = 0; r < layout.slots.size(); ++r) {
        if (layout.slots[r].node == me) mine.push_back(static_cast<int>(r));
    }
    const std::vector<std::string> node_order = node_order_of(layout);
    if (local_id < 0 || local_id >= static_cast<int>(mine.size())) {
        tell_task("task " + std::to_string(local_id) + " on " + me + " is not in the plan's layout; it starts without SpiderFlow ranks");
        return 0;
    }
    int rank = mine[static_cast<size_t>(local_id)];
    const RankSlot& slot = layout.slots[static_cast<size_t>(rank)];
    // Said once per node whose numbering differs (by its first task), wherever rank 0 landed:
    // a plan that groups nodes by switch can keep rank 0 on Slurm's first node and still move
    // every other node's ranks.
    if (rank != global_id && local_id == 0) {
        tell_task("Slurm numbered this step's tasks in its own order, so on " + me + " RANK (the plan's order, " +
                  std::to_string(rank) + ") differs from SLURM_PROCID (" + std::to_string(global_id) +
                  "); start the step with `spiderflow launch` (srun --distribution=arbitrary in the plan's order) to make them agree");
    }
    int node_rank = 0;
    for (size_t i = 0; i < node_order.size(); ++i) {
        if (node_order[i] == me) node_rank = static_cast<int>(i);
    }
    const int port = layout.world > 0 ? layout.master_port : master_port(st.config, sp);
    const int world = layout.world > 0 ? layout.world : static_cast<int>(layout.slots.size());
    // A cross-site part's ranks follow every earlier part's: frameworks that read SLURM_PROCID
    // (PyTorch Lightning, Megatron's Slurm helpers) see the same global numbering as RANK.
    if (layout.world > 0) {
        rank += layout.rank_base;
        node_rank += layout.rank_base / static_cast<int>(mine.size());
        set(sp, "SLURM_PROCID", std::to_string(rank), true);
        set(sp, "SLURM_NTASKS", std::to_string(world), true);
    }
    const int tp = to_int(planned_getenv(sp, env::kTp), 1);
    const int pp = to_int(planned_getenv(sp, env::kPp), 1);
    const int dp = to_int(planned_getenv(sp, env::kDp), 1);
    set(sp, "RANK", std::to_string(rank), true);
    set(sp, "LOCAL_RANK", std::to_string(local_id), true);
    set(sp, "WORLD_SIZE", std::to_string(world), true);
    set(sp, "LOCAL_WORLD_SIZE", std::to_string(mine.size()), true);
    set(sp, "MASTER_ADDR", layout.master_addr, true);
    set(sp, "MASTER_PORT", std::to_string(port), true);
    set(sp, env::kNodeRank, std::to_string(node_rank), true);
    set(sp, env::kTp, std::to_string(tp), true);
    set(sp, env::kPp, std::to_string(pp), true);
    set(sp, env::kDp, std::to_string(dp), true);
    const ParallelCoords c = coords_of_rank(rank, tp, pp, dp);
    set(sp, env::kTpRank, std::to_string(c.tp), true);
    set(sp, env::kPpRank, std::to_string(c.pp), true);
    set(sp, env::kDpRank, std::to_string(c.dp), true);

    // LOCAL_RANK stays SLURM_LOCALID; the device each local rank drives comes from reordering
    // CUDA_VISIBLE_DEVICES, so device LOCAL_RANK is the GPU the plan chose (NVLink domains grouped).
    const std::vector<std::string> visible = split_list(job_getenv(sp, "CUDA_VISIBLE_DEVICES"));
    if (visible.size() >= mine.size()) {
        std::string cvd;
        bool moved = false;
        for (size_t l = 0; l < visible.size(); ++l) {
            const size_t from = l < mine.size() ? static_cast<size_t>(layout.slots[static_cast<size_t>(mine[l])].device) : l;
            moved = moved || from != l;
            cvd += (l ? "," : "") + visible[from < visible.size() ? from : l];
        }
        if (moved) set(sp, "CUDA_VISIBLE_DEVICES", cvd, true);
    }

    const Topology* topo = stepd_state().topology.get();
    const NodeLocation where = locate_node(topo, me);
    const Node* node = where.cluster >= 0 ? &topo->clusters[static_cast<size_t>(where.cluster)].nodes[static_cast<size_t>(where.node)]
                                          : nullptr;
    const CommFacts facts = comm_facts_from_env([&](const std::string& name) { return planned_getenv(sp, name); });
    const NcclSettings site = nccl_settings(st.config);
    EnvList nccl = rank_env(facts, node, slot.device, site);
    try {
        // The job's traffic class, as `spiderflow launch` exports it (services/slurmjob/job_traffic.h).
        for (const auto& name : apply_job_class_env(nccl, st.config, planned_getenv(sp, env::kTrafficLevel)))
            spank_unsetenv(sp, name.c_str());
    } catch (const std::exception& e) {
        slurm_error("spiderflow: no traffic class for the job: %s", e.what());
    }
    for (const auto& [k, v] : nccl) set(sp, k, v, st.config.site_env_wins);
    return 0;
}

}  // namespace spiderflow::plugin::spank
