#include "plugins/sched/ctld_observer.h"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>

#include "services/slurmjob/tres.h"
#include "common/util/split_list.h"
#include "plugins/slurm_internal.h"

namespace spiderflow::plugin {
namespace {

std::string text(const char* s) { return s != nullptr ? s : ""; }

// The standalone agent's reading of a node's state (slurm_observer.cpp), on the raw bits.
NodeState node_state(const node_record_t* node) {
    if (IS_NODE_DOWN(node) || IS_NODE_UNKNOWN(node) || IS_NODE_FUTURE(node) || IS_NODE_FAIL(node) ||
        IS_NODE_NO_RESPOND(node)) {
        return NodeState::down;
    }
    if (IS_NODE_DRAIN(node)) return NodeState::drained;
    return NodeState::up;
}

// GPUs the job holds on each of its nodes, in node-bitmap order; empty when it holds none.
std::vector<int> job_gpus_per_node(const job_record_t* job) {
    std::vector<int> out;
    if (job->gres_list_alloc == nullptr) return out;
    ListIterator it = list_iterator_create(job->gres_list_alloc);
    while (auto* gres = static_cast<gres_state_t*>(list_next(it))) {
        if (text(gres->gres_name) != "gpu" || gres->gres_data == nullptr) continue;
        const auto* js = static_cast<const gres_job_state_t*>(gres->gres_data);
        if (js->gres_cnt_node_alloc == nullptr) continue;
        out.resize(std::max<size_t>(out.size(), js->node_cnt), 0);
        for (uint32_t k = 0; k < js->node_cnt; ++k) out[k] += static_cast<int>(js->gres_cnt_node_alloc[k]);
    }
    list_iterator_destroy(it);
    return out;
}

std::vector<std::string> node_names(const bitstr_t* bitmap) {
    std::vector<std::string> out;
    if (bitmap == nullptr) return out;
    for (int i = 0; i < node_record_count; ++i) {
        if (!bit_test(const_cast<bitstr_t*>(bitmap), i)) continue;
        const node_record_t* node = node_record_table_ptr[i];
        if (node != nullptr && node->name != nullptr) out.emplace_back(node->name);
    }
    return out;
}

}  // namespace

agent::ClusterObservation observe_slurmctld(SiteTime now) {
    agent::ClusterObservation obs;
    obs.taken_at = now;
    slurmctld_lock_t read_all = {READ_LOCK, READ_LOCK, READ_LOCK, READ_LOCK, NO_LOCK};
    lock_slurmctld(read_all);
    const auto locked = std::chrono::steady_clock::now();
    obs.cluster = text(slurm_conf.cluster_name);
    for (int i = 0; i < node_record_count; ++i) {
        const node_record_t* node = node_record_table_ptr[i];
        if (node == nullptr || node->name == nullptr) continue;
        agent::ObservedNode o;
        o.name = node->name;
        o.state = node_state(node);
        if (o.state != NodeState::up) o.reason = text(node->reason);
        o.features = split_list(text(node->features_act != nullptr ? node->features_act : node->features));
        obs.nodes.push_back(std::move(o));
    }
    ListIterator jobs = list_iterator_create(job_list);
    while (auto* job = static_cast<job_record_t*>(list_next(jobs))) {
        const bool holds = IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job) || IS_JOB_COMPLETING(job);
        // A job inside a reservation uses GPUs the reservation already holds.
        if (!holds || (job->resv_name != nullptr && *job->resv_name != '\0')) continue;
        const std::vector<std::string> names = node_names(job->node_bitmap);
        if (names.empty()) continue;
        agent::ObservedHold h;
        h.name = std::to_string(job->job_id);
        h.start = job->start_time > 0 ? static_cast<SiteTime>(job->start_time) : now;
        const bool endless = job->time_limit == INFINITE || job->end_time <= 0 || static_cast<SiteTime>(job->end_time) <= now;
        h.end = endless ? kForever : static_cast<SiteTime>(job->end_time);
        const std::vector<int> gpus = job_gpus_per_node(job);
        const int cores = std::max(1, static_cast<int>(job->total_cpus / names.size()));
        for (size_t k = 0; k < names.size(); ++k) h.nodes.push_back({names[k], k < gpus.size() ? gpus[k] : 0, cores});
        obs.jobs.push_back(std::move(h));
    }
    list_iterator_destroy(jobs);
    if (resv_list != nullptr) {
        ListIterator resvs = list_iterator_create(resv_list);
        while (auto* r = static_cast<slurmctld_resv_t*>(list_next(resvs))) {
            if (r->name == nullptr || static_cast<SiteTime>(r->end_time) <= now) continue;
            const std::vector<std::string> names = node_names(r->node_bitmap);
            if (names.empty()) continue;
            agent::ObservedHold h;
            h.name = r->name;
            h.start = static_cast<SiteTime>(r->start_time);
            h.end = static_cast<SiteTime>(r->end_time);
            for (const std::string& n : names) h.nodes.push_back({n, -1, 0});
            h.total_gpus = slurmjob::gpus_in_tres(r->tres_str).value_or(-1);
            obs.reservations.push_back(std::move(h));
        }
        list_iterator_destroy(resvs);
    }
    unlock_slurmctld(read_all);
    // How long writers waited on us: logged whenever it is the longest so far (doc/slurm.md).
    static double longest_us = 0;
    const double held_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - locked).count();
    if (held_us > longest_us) {
        longest_us = held_us;
        info("spiderflow: sched/spiderflow agent: held slurmctld's read locks %.0f us for %zu nodes, %zu jobs, %zu "
             "reservations (longest so far)",
             held_us, obs.nodes.size(), obs.jobs.size(), obs.reservations.size());
    }
    return obs;
}

}  // namespace spiderflow::plugin
