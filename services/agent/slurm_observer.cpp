// Reads slurmctld's node, job and reservation records through libslurm. Nodes of jobs and
// reservations come from their node_inx ranges into the node table (the order gres_detail_str
// follows), not from re-parsing the compressed host list. gres_detail_str is filled only when
// the jobs are loaded with SHOW_DETAIL.
#include "services/agent/slurm_observer.h"

#include "services/slurm_api/slurm_api.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "common/util/split_list.h"
#include "common/util/parse_number.h"

namespace spiderflow::agent {
namespace {

std::string text(const char* s) { return s != nullptr ? s : ""; }

[[noreturn]] void unavailable(const char* call) {
    throw SlurmUnavailable(std::string(call) + ": " + slurm_api::last_error());
}

NodeState node_state(uint32_t s) {
    const uint32_t base = s & NODE_STATE_BASE;
    // A node that does not answer, failed, or was never registered takes no work, like a down one.
    if (base == NODE_STATE_DOWN || base == NODE_STATE_UNKNOWN || base == NODE_STATE_FUTURE ||
        (s & (NODE_STATE_FAIL | NODE_STATE_NO_RESPOND)) != 0) {
        return NodeState::down;
    }
    if ((s & NODE_STATE_DRAIN) != 0) return NodeState::drained;
    return NodeState::up;
}

// Node names of a node_inx list: pairs of first/last indices ended by -1.
std::vector<std::string> names_of(const int32_t* inx, const node_info_msg_t& nodes) {
    std::vector<std::string> out;
    if (inx == nullptr) return out;
    for (int i = 0; inx[i] >= 0 && inx[i + 1] >= 0; i += 2) {
        for (int32_t n = inx[i]; n <= inx[i + 1]; ++n) {
            if (n < 0 || static_cast<uint32_t>(n) >= nodes.record_count || nodes.node_array[n].name == nullptr) return {};
            out.push_back(nodes.node_array[n].name);
        }
    }
    return out;
}

// "gres/gpu=16" in a TRES string ("cpu=64,gres/gpu=16,node=2"), or -1.
int tres_gpus(const char* tres) {
    for (const std::string& item : split_list(text(tres))) {
        if (item.rfind("gres/gpu=", 0) == 0) return to_int<int>(std::string_view(item).substr(9), 0).value_or(0);
    }
    return -1;
}

bool holds_nodes(uint32_t state) {
    const uint32_t base = state & JOB_STATE_BASE;
    return base == JOB_RUNNING || base == JOB_SUSPENDED || (state & JOB_COMPLETING) != 0;
}

}  // namespace

int gpus_in_gres_detail(const std::string& detail) {
    for (const std::string& item : split_list(detail)) {
        if (item.rfind("gpu:", 0) != 0 && item != "gpu" && item.rfind("gpu(", 0) != 0) continue;
        // gpu[:type]:count[(IDX:...)]
        const std::string head = item.substr(0, item.find('('));
        const size_t colon = head.rfind(':');
        if (colon == std::string::npos) return -1;
        return to_int<int>(std::string_view(head).substr(colon + 1), 0).value_or(-1);
    }
    return -1;
}

ClusterObservation observe_slurm(SiteTime now) {
    ClusterObservation obs;
    obs.taken_at = now;

    slurm_conf_t* conf = nullptr;
    if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS) unavailable("slurm_load_ctl_conf");
    obs.cluster = text(conf->cluster_name);
    slurm_api::free_ctl_conf(conf);

    node_info_msg_t* node_msg = nullptr;
    if (slurm_load_node(0, &node_msg, SHOW_ALL) != SLURM_SUCCESS) unavailable("slurm_load_node");
    std::unique_ptr<node_info_msg_t, void (*)(node_info_msg_t*)> nodes(node_msg, slurm_free_node_info_msg);
    for (uint32_t i = 0; i < nodes->record_count; ++i) {
        const node_info_t& n = nodes->node_array[i];
        if (n.name == nullptr) continue;
        ObservedNode o;
        o.name = n.name;
        o.state = node_state(n.node_state);
        if (o.state != NodeState::up) o.reason = text(n.reason);
        o.features = split_list(text(n.features_act != nullptr ? n.features_act : n.features));
        obs.nodes.push_back(std::move(o));
    }

    job_info_msg_t* job_msg = nullptr;
    if (slurm_load_jobs(0, &job_msg, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS) unavailable("slurm_load_jobs");
    std::unique_ptr<job_info_msg_t, void (*)(job_info_msg_t*)> jobs(job_msg, slurm_free_job_info_msg);
    for (uint32_t i = 0; i < jobs->record_count; ++i) {
        const slurm_job_info_t& j = jobs->job_array[i];
        // A job inside a reservation uses the reservation's GPUs, which the reservation already holds.
        if (!holds_nodes(j.job_state) || (j.resv_name != nullptr && *j.resv_name != '\0')) continue;
        std::vector<std::string> names = names_of(j.node_inx, *nodes);
        if (names.empty()) names = slurm_api::hostlist_names(j.nodes);
        if (names.empty()) continue;
        ObservedHold h;
        h.name = std::to_string(j.job_id);
        h.start = j.start_time > 0 ? static_cast<SiteTime>(j.start_time) : now;
        // No time limit (Slurm then puts the end a year out), or past its expected end
        // (OverTimeLimit, a limit raised late): the end is unknown.
        const bool endless = j.time_limit == INFINITE || j.end_time <= 0 || static_cast<SiteTime>(j.end_time) <= now;
        h.end = endless ? kForever : static_cast<SiteTime>(j.end_time);
        const int cores = std::max(1, static_cast<int>(j.num_cpus / names.size()));
        for (size_t k = 0; k < names.size(); ++k) {
            int gpus = 0;
            if (k < j.gres_detail_cnt && j.gres_detail_str != nullptr && j.gres_detail_str[k] != nullptr) {
                gpus = std::max(0, gpus_in_gres_detail(j.gres_detail_str[k]));
            }
            h.nodes.push_back({names[k], gpus, cores});
        }
        obs.jobs.push_back(std::move(h));
    }

    reserve_info_msg_t* resv_msg = nullptr;
    if (slurm_load_reservations(0, &resv_msg) != SLURM_SUCCESS) unavailable("slurm_load_reservations");
    std::unique_ptr<reserve_info_msg_t, void (*)(reserve_info_msg_t*)> resvs(resv_msg, slurm_free_reservation_info_msg);
    for (uint32_t i = 0; i < resvs->record_count; ++i) {
        const reserve_info_t& r = resvs->reservation_array[i];
        if (r.name == nullptr || static_cast<SiteTime>(r.end_time) <= now) continue;
        std::vector<std::string> names = names_of(r.node_inx, *nodes);
        if (names.empty()) names = slurm_api::hostlist_names(r.node_list);
        if (names.empty()) continue;
        ObservedHold h;
        h.name = r.name;
        h.start = static_cast<SiteTime>(r.start_time);
        h.end = static_cast<SiteTime>(r.end_time);
        // A GPU count for the reservation as a whole is spread over its nodes by the part builder.
        const int gpus = tres_gpus(r.tres_str);
        for (const std::string& n : names) h.nodes.push_back({n, -1, 0});
        h.total_gpus = gpus;
        obs.reservations.push_back(std::move(h));
    }
    return obs;
}

}  // namespace spiderflow::agent
