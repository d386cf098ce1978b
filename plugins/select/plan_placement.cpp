#include "plugins/select/plan_placement.h"

#include <string>
#include <vector>

#include "common/site/node_pick.h"
#include "services/slurmjob/plan_summary.h"

namespace spiderflow::plugin {
namespace {

// GPUs a node is configured with and has allocated: its gres/gpu record.
void gpu_counts(const node_record_t* node, int* avail, int* alloc) {
    *avail = *alloc = 0;
    if (node->gres_list == nullptr) return;
    ListIterator it = list_iterator_create(node->gres_list);
    while (auto* gres = static_cast<gres_state_t*>(list_next(it))) {
        if (gres->gres_name == nullptr || std::string(gres->gres_name) != "gpu" || gres->gres_data == nullptr) continue;
        const auto* ns = static_cast<const gres_node_state_t*>(gres->gres_data);
        *avail = static_cast<int>(ns->gres_cnt_avail);
        *alloc = static_cast<int>(ns->gres_cnt_alloc);
    }
    list_iterator_destroy(it);
}

bool takes_new_work(const node_record_t* node) {
    return !IS_NODE_DOWN(node) && !IS_NODE_DRAIN(node) && !IS_NODE_FAIL(node) && !IS_NODE_NO_RESPOND(node) &&
           !IS_NODE_POWERED_DOWN(node) && !IS_NODE_COMPLETING(node) && !IS_NODE_MAINT(node);
}

// The cluster from slurmctld's records. index[i] is node i's slot in Slurm's node table (the
// table may have holes: dynamic nodes).
Topology cluster_from_records(std::vector<int>* index) {
    Topology t;
    t.name = "slurmctld";
    Cluster c;
    c.name = slurm_conf.cluster_name != nullptr ? slurm_conf.cluster_name : "cluster";
    std::vector<int> slot_of(static_cast<size_t>(node_record_count), -1);
    for (int i = 0; i < node_record_count; ++i) {
        const node_record_t* node = node_record_table_ptr[i];
        if (node == nullptr || node->name == nullptr) continue;
        Node n;
        n.name = node->name;
        int alloc = 0;
        gpu_counts(node, &n.gpus, &alloc);
        slot_of[static_cast<size_t>(i)] = static_cast<int>(c.nodes.size());
        index->push_back(i);
        c.nodes.push_back(std::move(n));
    }
    // topology/tree's switches: leaves (level 0) own their nodes, upper ones list children.
    for (int s = 0; s < switch_record_cnt; ++s) {
        const switch_record_t& rec = switch_record_table[s];
        if (rec.name == nullptr) continue;
        Switch sw;
        sw.name = rec.name;
        for (int k = 0; k < rec.num_switches; ++k) {
            const int child = rec.switch_index[k];
            if (child >= 0 && child < switch_record_cnt && switch_record_table[child].name != nullptr)
                sw.switches.push_back(switch_record_table[child].name);
        }
        if (rec.level == 0 && rec.node_bitmap != nullptr) {
            for (int i = 0; i < node_record_count; ++i) {
                const int slot = slot_of[static_cast<size_t>(i)];
                if (slot < 0 || !bit_test(rec.node_bitmap, i)) continue;
                c.nodes[static_cast<size_t>(slot)].leaf_switch = sw.name;
                sw.nodes.push_back(c.nodes[static_cast<size_t>(slot)].name);
            }
        }
        c.switches.push_back(std::move(sw));
    }
    t.clusters.push_back(std::move(c));
    t.finalize("slurmctld's node and switch records");
    return t;
}

// The cluster's shape changes only on reconfigure (slurm_conf.last_update) or when nodes or
// switches come and go: build it once per shape, not once per planned start. Callers hold
// slurmctld's node write lock, so one at a time.
struct CachedCluster {
    int nodes = -1, switches = -1;
    time_t conf_update = 0;
    std::vector<int> index;
    Topology topology;
};

// Dynamic nodes can leave or fill a hole in the node table without changing its size: every
// cached node must still be the one at its slot.
bool still_valid(const CachedCluster& c) {
    if (c.nodes != node_record_count || c.switches != switch_record_cnt || c.conf_update != slurm_conf.last_update)
        return false;
    const auto& nodes = c.topology.clusters.front().nodes;
    for (size_t k = 0; k < c.index.size(); ++k) {
        const node_record_t* node = node_record_table_ptr[c.index[k]];
        if (node == nullptr || node->name == nullptr || nodes[k].name != node->name) return false;
    }
    return true;
}

const CachedCluster& cluster_now() {
    static CachedCluster cache;
    if (cache.topology.clusters.empty() || !still_valid(cache)) {
        CachedCluster fresh;
        fresh.topology = cluster_from_records(&fresh.index);
        fresh.nodes = node_record_count;
        fresh.switches = switch_record_cnt;
        fresh.conf_update = slurm_conf.last_update;
        cache = std::move(fresh);
    }
    return cache;
}

}  // namespace

PlacementChoice planned_nodes(job_record_t* job, bitstr_t* candidates, uint32_t min_nodes) {
    PlacementChoice out;
    slurmjob::PlanSummary plan;
    if (job->admin_comment == nullptr || !slurmjob::parse_plan_summary(job->admin_comment, &plan)) return out;
    PickRequest request{plan.nodes, plan.gpus_per_node, plan.pp};
    if (!plan.parts.empty()) {
        // A cross-site part: this cluster's share, whole stages of the one plan.
        request = PickRequest{};
        const std::string here = slurm_conf.cluster_name != nullptr ? slurm_conf.cluster_name : "";
        for (const auto& part : plan.parts) {
            if (part.cluster != here) continue;
            const int per_stage = plan.tp * plan.dp;
            request = PickRequest{part.nodes, part.gpus_per_node,
                                  per_stage > 0 && part.ranks % per_stage == 0 ? part.ranks / per_stage : 1};
        }
    }
    if (request.nodes <= 1) return out;   // one node: nothing to arrange
    if (static_cast<uint32_t>(request.nodes) != min_nodes) {
        out.why = "the job asks for " + std::to_string(min_nodes) + " nodes, its plan for " + std::to_string(request.nodes);
        return out;
    }
    if (job->details != nullptr && job->details->req_node_bitmap != nullptr) {
        out.why = "the job names its nodes";
        return out;
    }
    const CachedCluster& cached = cluster_now();
    const std::vector<int>& index = cached.index;
    const Cluster& cluster = cached.topology.clusters.front();
    std::vector<int> free(cluster.nodes.size(), 0);
    for (size_t k = 0; k < index.size(); ++k) {
        const node_record_t* node = node_record_table_ptr[index[k]];
        if (!bit_test(candidates, index[k]) || !takes_new_work(node)) continue;
        int avail = 0, alloc = 0;
        gpu_counts(node, &avail, &alloc);
        free[k] = avail - alloc;
    }
    const auto pick = pick_nodes(cluster, free, {}, request);
    if (!pick) {
        out.why = "fewer than " + std::to_string(request.nodes) + " nodes with " + std::to_string(request.gpus_per_node) +
                  " free GPUs";
        return out;
    }
    out.nodes = bit_alloc(node_record_count);
    for (int k : pick->nodes) bit_set(out.nodes, index[static_cast<size_t>(k)]);
    out.leaf_switches = pick->leaf_switches;
    out.split_stages = pick->split_stages;
    return out;
}

}  // namespace spiderflow::plugin
