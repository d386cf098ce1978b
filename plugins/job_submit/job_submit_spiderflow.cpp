// job_submit/spiderflow: plans a SpiderFlow job at submit time and rewrites its request.
// The C-ABI surface only: config and topology caching, then decide_submission() does the work.
// No exception leaves this file; anything unexpected lets the job through unchanged.
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
}

#include "plugins/common/site_config.h"
#include "plugins/common/submit_planner.h"
#include "plugins/common/slurm_host.h"
#include "plugins/common/topology_cache.h"
#include "common/util/errors.h"
#include "plugins/job_submit/job_desc_edit.h"

extern "C" {
extern const char plugin_name[] = "SpiderFlow topology-aware LLM job planner";
extern const char plugin_type[] = "job_submit/spiderflow";
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
}

namespace {

using namespace spiderflow::plugin;

struct State {
    std::mutex mu;
    std::string config_path;
    struct timespec config_mtime {};
    std::shared_ptr<const SiteConfig> config;
    TopologyCache topology;
};

State& state() {
    static State s;
    return s;
}

// Re-reads the config when its file changed; a bad edit keeps the previous config and logs.
std::shared_ptr<const SiteConfig> current_config() {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    struct stat st {};
    if (::stat(s.config_path.c_str(), &st) != 0) {
        if (!s.config) s.config = std::make_shared<const SiteConfig>();
        return s.config;
    }
    if (s.config && st.st_mtim.tv_sec == s.config_mtime.tv_sec && st.st_mtim.tv_nsec == s.config_mtime.tv_nsec) {
        return s.config;
    }
    s.config_mtime = st.st_mtim;
    try {
        s.config = std::make_shared<const SiteConfig>(load_site_config(s.config_path));
    } catch (const std::exception& e) {
        slurm_error("spiderflow: %s (keeping the previous settings)", e.what());
        if (!s.config) s.config = std::make_shared<const SiteConfig>();
    }
    return s.config;
}

}  // namespace

extern "C" int init(void) {
    try {
        State& s = state();
        s.config_path = site_config_path();
        struct stat st {};
        if (::stat(s.config_path.c_str(), &st) != 0) {
            slurm_info("spiderflow: no %s; SpiderFlow jobs pass through unplanned", s.config_path.c_str());
            s.config = std::make_shared<const SiteConfig>();
            return SLURM_SUCCESS;
        }
        // Strict at load: a config with an unknown key or a bad value refuses to load.
        s.config = std::make_shared<const SiteConfig>(load_site_config(s.config_path));
        s.config_mtime = st.st_mtim;
        std::string why;
        if (!s.config->topology.empty() && !s.topology.get(s.config->topology, s.config->topology_format, &why)) {
            slurm_error("spiderflow: topology not usable yet: %s", why.c_str());
        }
        slurm_info("spiderflow: job_submit loaded (config %s, topology %s)", s.config_path.c_str(),
                   s.config->topology.c_str());
        return SLURM_SUCCESS;
    } catch (const std::exception& e) {
        slurm_error("spiderflow: refusing to load: %s", e.what());
        return SLURM_ERROR;
    } catch (...) {
        slurm_error("spiderflow: refusing to load");
        return SLURM_ERROR;
    }
}

extern "C" int fini(void) {
    // An abandoned planner thread runs code of this .so: wait for it before Slurm unloads us.
    for (int i = 0; i < 600 && planner_threads_running() > 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (planner_threads_running() > 0) slurm_error("spiderflow: unloading with a planner thread still running");
    return SLURM_SUCCESS;
}

extern "C" int job_submit(job_desc_msg_t* job, uint32_t submit_uid, char** err_msg) {
    (void)submit_uid;  // federated siblings submit as uid 0: job->user_id is the person
    try {
        const JobOptions opts =
            read_job_options(env_vector(job->spank_job_env, job->spank_job_env_size), env_vector(job->environment, job->env_size));
        if (!opts.any()) return SLURM_SUCCESS;
        const auto cfg = current_config();
        std::string why;
        auto topo = cfg->enabled ? state().topology.get(cfg->topology, cfg->topology_format, &why) : nullptr;
        if (cfg->enabled && !topo) {
            slurm_error("spiderflow: job of uid %u passes unplanned: %s", job->user_id, why.c_str());
            return SLURM_SUCCESS;
        }
        const SubmitDecision d = decide_submission(opts, requested_gpus(job), topo, *cfg);
        switch (d.outcome) {
            case Outcome::untouched:
                return SLURM_SUCCESS;
            case Outcome::fail_open:
                slurm_error("spiderflow: job of uid %u passes unplanned: %s", job->user_id, d.message.c_str());
                return SLURM_SUCCESS;
            case Outcome::reject:
                slurm_info("spiderflow: rejected job of uid %u: %s", job->user_id, d.message.c_str());
                if (err_msg != nullptr) *err_msg = slurm_xstrdup(d.message.c_str());
                return SLURM_ERROR;
            case Outcome::rewrite:
                apply_rewrite(job, d.rewrite, cfg->constrain_gpu_type);
                slurm_info("spiderflow: uid %u: %s (%.2f ms)", job->user_id, d.rewrite.summary.c_str(), d.planning_ms);
                return SLURM_SUCCESS;
        }
        return SLURM_SUCCESS;
    } catch (const spiderflow::InputError& e) {
        // Only the user's own option values throw here (read_job_options).
        if (err_msg != nullptr) *err_msg = slurm_xstrdup((std::string("spiderflow: ") + e.what()).c_str());
        return SLURM_ERROR;
    } catch (const std::exception& e) {
        slurm_error("spiderflow: internal error, job passes unchanged: %s", e.what());
        return SLURM_SUCCESS;
    } catch (...) {
        slurm_error("spiderflow: internal error, job passes unchanged");
        return SLURM_SUCCESS;
    }
}

extern "C" int job_modify(job_desc_msg_t* job, void* job_record, uint32_t submit_uid) {
    // Changing a planned job's size would invalidate its plan; SpiderFlow leaves updates alone.
    (void)job;
    (void)job_record;
    (void)submit_uid;
    return SLURM_SUCCESS;
}
