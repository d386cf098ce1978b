// select/spiderflow_cons_tres: select/cons_tres, except that a job SpiderFlow planned starts on
// the nodes its plan wants among those free now (plan_placement.cpp). The ABI only: every
// select_p_* call goes to cons_tres unchanged, and job_test first narrows the candidate nodes
// of a planned job. Its name contains "cons_tres" on purpose: slurmctld and slurmd enable
// heterogeneous GRES, dynamic nodes and MaxNodeCount by looking for that substring in
// SelectType (doc/slurm.md lists every such place).
#include <chrono>
#include <exception>

#include "plugins/select/cons_tres_ops.h"
#include "plugins/select/plan_placement.h"

extern "C" {
extern const char plugin_name[] = "SpiderFlow plan-aware placement over select/cons_tres";
extern const char plugin_type[] = "select/spiderflow_cons_tres";
// Unique among all select plugins of PluginDir (Slurm's use 101-109) and >= 100.
extern const uint32_t plugin_id = 170;
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
}

using spiderflow::plugin::cons_tres;

namespace {

// A planned job's nodes, or cons_tres's choice when ours cannot be used. Never throws.
int planned_job_test(job_record_t* job, bitstr_t* bitmap, uint32_t min_nodes, uint32_t max_nodes, uint32_t req_nodes,
                     uint16_t mode, bitstr_t* exc_core_bitmap, bool* placed) {
    *placed = false;
    const auto started = std::chrono::steady_clock::now();
    spiderflow::plugin::PlacementChoice choice;
    try {
        choice = spiderflow::plugin::planned_nodes(job, bitmap, min_nodes);
    } catch (const std::exception& e) {
        error("spiderflow: job %u: plan-aware placement failed (%s): placing it as cons_tres alone", job->job_id, e.what());
        return SLURM_ERROR;
    } catch (...) {
        error("spiderflow: job %u: plan-aware placement failed: placing it as cons_tres alone", job->job_id);
        return SLURM_ERROR;
    }
    const auto picked = std::chrono::steady_clock::now();
    if (choice.nodes == nullptr) {
        if (!choice.why.empty()) debug("spiderflow: job %u: placed as cons_tres alone: %s", job->job_id, choice.why.c_str());
        return SLURM_ERROR;
    }
    const int rc = cons_tres().job_test(job, choice.nodes, min_nodes, max_nodes, req_nodes, mode, nullptr, nullptr,
                                        exc_core_bitmap);
    const double pick_us = std::chrono::duration<double, std::micro>(picked - started).count();
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count();
    if (rc == SLURM_SUCCESS) {
        bit_copybits(bitmap, choice.nodes);
        char* names = bitmap2node_name(bitmap);
        info("spiderflow: job %u placed as planned on %s (%d leaf switches, %d stages split across switches; "
             "our pick %.0f us, with cons_tres's %.0f us)",
             job->job_id, names, choice.leaf_switches, choice.split_stages, pick_us, us);
        xfree(names);
        *placed = true;
    } else {
        debug("spiderflow: job %u: cons_tres cannot start it on the planned nodes now: it decides alone", job->job_id);
    }
    FREE_NULL_BITMAP(choice.nodes);
    return rc;
}

}  // namespace

extern "C" {

int init(void) { return SLURM_SUCCESS; }

int fini(void) {
    spiderflow::plugin::release_cons_tres();
    return SLURM_SUCCESS;
}

int select_p_job_test(job_record_t* job_ptr, bitstr_t* bitmap, uint32_t min_nodes, uint32_t max_nodes,
                      uint32_t req_nodes, uint16_t mode, List preemptee_candidates, List* preemptee_job_list,
                      bitstr_t* exc_core_bitmap) {
    // Only a start now, without preemption: will-run and test-only answers, and preempting
    // starts, stay exactly cons_tres's.
    if (SELECT_IS_MODE_RUN_NOW(mode) && preemptee_candidates == nullptr && job_ptr != nullptr && bitmap != nullptr) {
        bool placed = false;
        const int rc = planned_job_test(job_ptr, bitmap, min_nodes, max_nodes, req_nodes, mode, exc_core_bitmap, &placed);
        if (placed) return rc;
    }
    return cons_tres().job_test(job_ptr, bitmap, min_nodes, max_nodes, req_nodes, mode, preemptee_candidates,
                                preemptee_job_list, exc_core_bitmap);
}

// Everything else is cons_tres's, unchanged.
int select_p_state_save(char* dir_name) { return cons_tres().state_save(dir_name); }
int select_p_state_restore(char* dir_name) { return cons_tres().state_restore(dir_name); }
int select_p_job_init(List job_list) { return cons_tres().job_init(job_list); }
int select_p_node_init(void) { return cons_tres().node_init(); }
int select_p_job_begin(job_record_t* job_ptr) { return cons_tres().job_begin(job_ptr); }
int select_p_job_ready(job_record_t* job_ptr) { return cons_tres().job_ready(job_ptr); }
int select_p_job_expand(job_record_t* from, job_record_t* to) { return cons_tres().job_expand(from, to); }
int select_p_job_resized(job_record_t* job_ptr, node_record_t* node_ptr) { return cons_tres().job_resized(job_ptr, node_ptr); }
int select_p_job_signal(job_record_t* job_ptr, int signal) { return cons_tres().job_signal(job_ptr, signal); }
int select_p_job_fini(job_record_t* job_ptr) { return cons_tres().job_fini(job_ptr); }
int select_p_job_suspend(job_record_t* job_ptr, bool indf) { return cons_tres().job_suspend(job_ptr, indf); }
int select_p_job_resume(job_record_t* job_ptr, bool indf) { return cons_tres().job_resume(job_ptr, indf); }
bitstr_t* select_p_step_pick_nodes(job_record_t* job_ptr, select_jobinfo_t* jobinfo, uint32_t node_count,
                                   bitstr_t** avail_nodes) {
    return cons_tres().step_pick_nodes(job_ptr, jobinfo, node_count, avail_nodes);
}
int select_p_step_start(step_record_t* step_ptr) { return cons_tres().step_start(step_ptr); }
int select_p_step_finish(step_record_t* step_ptr, bool killing) { return cons_tres().step_finish(step_ptr, killing); }
int select_p_select_nodeinfo_pack(select_nodeinfo_t* nodeinfo, buf_t* buffer, uint16_t protocol_version) {
    return cons_tres().nodeinfo_pack(nodeinfo, buffer, protocol_version);
}
int select_p_select_nodeinfo_unpack(select_nodeinfo_t** nodeinfo, buf_t* buffer, uint16_t protocol_version) {
    return cons_tres().nodeinfo_unpack(nodeinfo, buffer, protocol_version);
}
select_nodeinfo_t* select_p_select_nodeinfo_alloc(void) { return cons_tres().nodeinfo_alloc(); }
int select_p_select_nodeinfo_free(select_nodeinfo_t* nodeinfo) { return cons_tres().nodeinfo_free(nodeinfo); }
int select_p_select_nodeinfo_set_all(void) { return cons_tres().nodeinfo_set_all(); }
int select_p_select_nodeinfo_set(job_record_t* job_ptr) { return cons_tres().nodeinfo_set(job_ptr); }
int select_p_select_nodeinfo_get(select_nodeinfo_t* nodeinfo, enum select_nodedata_type dinfo, enum node_states state,
                                 void* data) {
    return cons_tres().nodeinfo_get(nodeinfo, dinfo, state, data);
}
select_jobinfo_t* select_p_select_jobinfo_alloc(void) { return cons_tres().jobinfo_alloc(); }
int select_p_select_jobinfo_free(select_jobinfo_t* jobinfo) { return cons_tres().jobinfo_free(jobinfo); }
int select_p_select_jobinfo_set(select_jobinfo_t* jobinfo, enum select_jobdata_type type, void* data) {
    return cons_tres().jobinfo_set(jobinfo, type, data);
}
int select_p_select_jobinfo_get(select_jobinfo_t* jobinfo, enum select_jobdata_type type, void* data) {
    return cons_tres().jobinfo_get(jobinfo, type, data);
}
select_jobinfo_t* select_p_select_jobinfo_copy(select_jobinfo_t* jobinfo) { return cons_tres().jobinfo_copy(jobinfo); }
int select_p_select_jobinfo_pack(select_jobinfo_t* jobinfo, buf_t* buffer, uint16_t protocol_version) {
    return cons_tres().jobinfo_pack(jobinfo, buffer, protocol_version);
}
int select_p_select_jobinfo_unpack(select_jobinfo_t** jobinfo, buf_t* buffer, uint16_t protocol_version) {
    return cons_tres().jobinfo_unpack(jobinfo, buffer, protocol_version);
}
char* select_p_select_jobinfo_sprint(select_jobinfo_t* jobinfo, char* buf, size_t size, int mode) {
    return cons_tres().jobinfo_sprint(jobinfo, buf, size, mode);
}
char* select_p_select_jobinfo_xstrdup(select_jobinfo_t* jobinfo, int mode) { return cons_tres().jobinfo_xstrdup(jobinfo, mode); }
int select_p_get_info_from_plugin(enum select_plugindata_info info, job_record_t* job_ptr, void* data) {
    return cons_tres().get_info_from_plugin(info, job_ptr, data);
}
int select_p_update_node_config(int index) { return cons_tres().update_node_config(index); }
int select_p_reconfigure(void) { return cons_tres().reconfigure(); }
bitstr_t* select_p_resv_test(resv_desc_msg_t* resv_desc_ptr, uint32_t node_cnt, bitstr_t* avail_bitmap,
                             bitstr_t** core_bitmap) {
    return cons_tres().resv_test(resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap);
}

}  // extern "C"
