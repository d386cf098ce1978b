// libslurm's public calls as one set for every Slurm this builds against (22.05, 24.11, 26.05):
// the one place that knows how they differ. Code outside the plugins' own Slurm interfaces
// includes this instead of <slurm/slurm.h> and calls these where a difference exists.
#pragma once

#include "config.h"  // SF_SLURM_JOB_BY_STEP_ID: what configure found in slurm.h

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
}

namespace spiderflow::slurm_api {

// From 23.02 on libslurm wants slurm_init() (slurm.conf, then its auth and hash plugins) before a
// program's first call, or the call dies ("No hash plugins loaded"); 22.05 managed without. Our
// programs call this before they talk to slurmctld; code running inside slurmctld or slurmstepd
// must not (they did it already).
inline void init_client() {
    static std::once_flag once;
    std::call_once(once, [] { slurm_init(nullptr); });
}

// 26.05 names a job by a slurm_step_id_t (by value) in the job calls and in job_desc_msg_t and
// submit_response_msg_t; its header adapts old C callers with C11 _Generic, which C++ cannot use.
#ifdef SF_SLURM_JOB_BY_STEP_ID
inline slurm_step_id_t job_step_id(uint32_t job_id) {
    slurm_step_id_t id{};  // what SLURM_STEP_ID_INITIALIZER (a C compound literal) sets
    id.sluid = 0;
    id.job_id = job_id;
    id.step_het_comp = NO_VAL;
    id.step_id = NO_VAL;
    return id;
}
inline int load_job(job_info_msg_t** out, uint32_t job_id, uint16_t show_flags) {
    return slurm_load_job(out, job_step_id(job_id), show_flags);
}
inline int kill_job(uint32_t job_id, uint16_t signal, uint16_t flags) { return slurm_kill_job(job_step_id(job_id), signal, flags); }
inline int notify_job(uint32_t job_id, char* message) { return slurm_notify_job(job_step_id(job_id), message); }
inline int job_batch_script(FILE* out, uint32_t job_id) { return slurm_job_batch_script(out, job_step_id(job_id)); }
inline void set_job_id(job_desc_msg_t& d, uint32_t job_id) { d.step_id = job_step_id(job_id); }
inline uint32_t job_id_of(const job_desc_msg_t& d) { return d.step_id.job_id; }
inline uint32_t submitted_job_id(const submit_response_msg_t& r) { return r.step_id.job_id; }
#else
inline int load_job(job_info_msg_t** out, uint32_t job_id, uint16_t show_flags) { return slurm_load_job(out, job_id, show_flags); }
inline int kill_job(uint32_t job_id, uint16_t signal, uint16_t flags) { return slurm_kill_job(job_id, signal, flags); }
inline int notify_job(uint32_t job_id, char* message) { return slurm_notify_job(job_id, message); }
inline int job_batch_script(FILE* out, uint32_t job_id) { return slurm_job_batch_script(out, job_id); }
inline void set_job_id(job_desc_msg_t& d, uint32_t job_id) { d.job_id = job_id; }
inline uint32_t job_id_of(const job_desc_msg_t& d) { return d.job_id; }
inline uint32_t submitted_job_id(const submit_response_msg_t& r) { return r.job_id; }
#endif

// A job update that changes nothing yet: the caller sets the fields to change.
inline job_desc_msg_t update_of(uint32_t job_id) {
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    set_job_id(d, job_id);
    return d;
}

// The controller's configuration, freed (slurm_free_ctl_conf was renamed slurm_free_conf in 26.05).
#if HAVE_DECL_SLURM_FREE_CONF
inline void free_ctl_conf(slurm_conf_t* conf) { slurm_free_conf(conf); }
#else
inline void free_ctl_conf(slurm_conf_t* conf) { slurm_free_ctl_conf(conf); }
#endif

// The name slurm_create_reservation returns: malloc'd up to 24.11 (its header says free), from
// Slurm's own allocator in 26.05 (xfree; free() aborts the program). 25.x not checked.
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
extern "C" void slurm_xfree_ptr(void* ptr);  // exported by libslurm, declared only inside Slurm
inline void free_reservation_name(char* name) { slurm_xfree_ptr(name); }
#else
inline void free_reservation_name(char* name) { std::free(name); }
#endif

// A reservation's node count: a zero-terminated array up to 23.02, a number from 23.11 on.
// `storage` must live until the reservation call returns.
struct NodeCount {
    uint32_t storage[2] = {0, 0};
};
inline void set_node_count(resv_desc_msg_t& r, NodeCount& holder, uint32_t count) {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
    (void)holder;
    r.node_cnt = count;
#else
    holder.storage[0] = count;
    r.node_cnt = holder.storage;
#endif
}

// The text of the last libslurm error (slurm_get_errno() is gone from 24.11: libslurm sets errno).
inline std::string last_error() { return slurm_strerror(errno); }

// Slurm's host list expression ("gpu[01-04]") as names, by libslurm itself (hostlist_t is a
// pointer typedef up to 23.02 and the struct from 23.11 on; `auto` takes either).
inline std::vector<std::string> hostlist_names(const char* expression) {
    std::vector<std::string> out;
    if (expression == nullptr || *expression == '\0') return out;
    auto list = slurm_hostlist_create(expression);
    if (list == nullptr) return out;
    while (char* host = slurm_hostlist_shift(list)) {
        out.emplace_back(host);
        std::free(host);
    }
    slurm_hostlist_destroy(list);
    return out;
}

}  // namespace spiderflow::slurm_api
