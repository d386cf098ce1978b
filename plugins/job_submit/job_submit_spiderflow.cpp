// job_submit/spiderflow: plans a SpiderFlow job at submit time and rewrites its request.
// The C-ABI surface only: config and topology caching, then decide_submission() does the work.
// No exception leaves this file; anything unexpected lets the job through unchanged.

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
}

#include "common/util/errors.h"
#include "common/util/stamped_file.h"
#include "plugins/job_submit/job_desc_edit.h"
#include "plugins/slurm_conf_file.h"
#include "plugins/slurm_host.h"
#include "services/launch/launch_contract.h"
#include "services/slurmjob/spiderflow_conf.h"
#include "services/slurmjob/submit_planner.h"
#include "services/slurmjob/submit_site.h"

// sbatch always prints "Batch job submission failed: <strerror(code)>" after our message (22.05
// has no code of its own for job_submit plugins): pick the code whose text fits the problem
// instead of SLURM_ERROR's "Unspecified error".
int reject_code(spiderflow::slurmjob::RejectKind kind) {
    using spiderflow::slurmjob::RejectKind;
    switch (kind) {
        case RejectKind::gpus: return ESLURM_INVALID_GRES;
        case RejectKind::gpu_count_missing: return ESLURM_JOB_MISSING_SIZE_SPECIFICATION;
        case RejectKind::nodes: return ESLURM_INVALID_NODE_COUNT;
        case RejectKind::tasks: return ESLURM_BAD_TASK_COUNT;
        case RejectKind::no_fit: return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
        // A bad --llm-* value: Slurm's own "Bad argument" (its SPANK code), not "Requested
        // operation not supported on this system", which reads as if the cluster lacked SpiderFlow.
        case RejectKind::spec: return ESPANK_BAD_ARG;
    }
    return ESPANK_BAD_ARG;
}

extern "C" {
extern const char plugin_name[] = "SpiderFlow topology-aware LLM job planner";
extern const char plugin_type[] = "job_submit/spiderflow";
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
}

namespace {

using namespace spiderflow::plugin;
using namespace spiderflow::slurmjob;

// One read of the config file: the config, or the disabled one and why.
struct LoadedConfig {
    std::shared_ptr<const SpiderflowConf> config;
    std::string error;  // why SpiderFlow is off: the file as it is now does not parse
};

struct State {
    std::mutex mu;
    std::string config_path;
    spiderflow::StampedFile<LoadedConfig> config;
    // What runs while no config file was ever read: the defaults.
    std::shared_ptr<const SpiderflowConf> no_file = std::make_shared<const SpiderflowConf>();
    SubmitSiteCache site;
    std::string last_site_warning;  // logged once per change, not per job
};

State& state() {
    static State s;
    return s;
}

// A config that disables every feature: what runs until a good config has been read.
std::shared_ptr<const SpiderflowConf> disabled_config() {
    auto c = std::make_shared<SpiderflowConf>();
    c->enabled = false;
    return c;
}

// Reads the config when its file changed. A bad edit turns SpiderFlow off until the file is
// fixed, as it does on every node's step side (which reads the same file at each step start):
// planning on the previous settings would promise jobs ranks their steps then lack. The error
// is logged once per change of the file; plain jobs never see it.
LoadedConfig load_config(const std::string& path, bool was_off) {
    try {
        LoadedConfig loaded{std::make_shared<const SpiderflowConf>(load_spiderflow_conf(path)), ""};
        if (was_off) slurm_info("spiderflow: %s read again: SpiderFlow is on", path.c_str());
        return loaded;
    } catch (const std::exception& e) {
        slurm_error("spiderflow: %s: SpiderFlow is OFF for jobs that ask for it until the file is fixed "
                    "(they are refused at sbatch with this reason; plain jobs are not affected)",
                    e.what());
        return {disabled_config(), std::string("configuration error: ") + e.what()};
    }
}

std::shared_ptr<const SpiderflowConf> current_config(std::string* error) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    const spiderflow::FileStamp stamp = spiderflow::FileStamp::of(s.config_path);
    const LoadedConfig* held = s.config.held();
    // A file that went away leaves the last read in force.
    if (!stamp.exists) {
        *error = held ? held->error : "";
        return held ? held->config : s.no_file;
    }
    const bool was_off = held && !held->error.empty();
    const LoadedConfig& now =
        s.config.get(s.config_path, stamp, [was_off](const std::string& path, const spiderflow::FileStamp&) {
            return load_config(path, was_off);
        });
    *error = now.error;
    return now.config;
}

// A broken site state snapshot is the site's problem, not the job's: said in the log once per
// change, and the job is planned on the whole topology.
void note_site_warning(const std::string& warning) {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    if (warning == s.last_site_warning) return;
    s.last_site_warning = warning;
    if (!warning.empty()) slurm_error("spiderflow: %s", warning.c_str());
}

// A user-visible line with a job that Slurm accepts: sbatch/salloc print job_submit's message.
void tell_user(char** err_msg, const std::string& text) {
    if (err_msg != nullptr && *err_msg == nullptr) *err_msg = slurm_xstrdup(text.c_str());
}

}  // namespace

extern "C" int init(void) {
    // Never refuses to load: a slurmctld that cannot start because of our config is an outage.
    try {
        std::string error;
        state().config_path = site_conf_path();
        const auto cfg = current_config(&error);
        if (!error.empty()) {
            slurm_error("spiderflow: job_submit loaded but OFF: %s", error.c_str());
            return SLURM_SUCCESS;
        }
        std::string why, warning;
        if (cfg->enabled && !cfg->topology.empty() && !state().site.get(*cfg, &why, &warning)) {
            slurm_error("spiderflow: topology not usable yet: %s", why.c_str());
        }
        if (!warning.empty()) slurm_error("spiderflow: %s", warning.c_str());
        slurm_info("spiderflow: job_submit loaded (config %s, topology %s)", state().config_path.c_str(),
                   cfg->topology.c_str());
    } catch (const std::exception& e) {
        slurm_error("spiderflow: job_submit loaded but OFF: %s", e.what());
    } catch (...) {
        slurm_error("spiderflow: job_submit loaded but OFF");
    }
    return SLURM_SUCCESS;
}

extern "C" int fini(void) {
    // An abandoned planner thread runs code of this .so: join it before Slurm unloads us. Each
    // search is bounded by its time limit, so this waits at most about one planning budget.
    if (planner_threads_running() > 0) slurm_info("spiderflow: waiting for a planner thread before unloading");
    join_planner_threads();
    state().site.join();  // a site state read in flight runs this .so's code too
    return SLURM_SUCCESS;
}

extern "C" int job_submit(job_desc_msg_t* job, uint32_t submit_uid, char** err_msg) {
    (void)submit_uid;  // federated siblings submit as uid 0: job->user_id is the person
    try {
        // A part of a cross-site job, submitted by this cluster's agent: planned already, placed
        // by the broker, its SPIDERFLOW_* settings are the plan's, not a request to plan.
        if (job->environment != nullptr) {
            const size_t n = std::strlen(spiderflow::env::kXJob);
            for (uint32_t i = 0; i < job->env_size && job->environment[i] != nullptr; ++i) {
                if (std::strncmp(job->environment[i], spiderflow::env::kXJob, n) == 0 && job->environment[i][n] == '=') {
                    return SLURM_SUCCESS;
                }
            }
        }
        const JobOptions opts =
            read_job_options(env_vector(job->spank_job_env, job->spank_job_env_size), env_vector(job->environment, job->env_size));
        if (!opts.any()) return SLURM_SUCCESS;
        std::string config_error;
        const auto cfg = current_config(&config_error);
        if (!config_error.empty()) {
            // The job asks for SpiderFlow and would run without the ranks and settings it was
            // promised: refused at once, with the reason, rather than started half-way.
            slurm_info("spiderflow: refused job of uid %u: SpiderFlow is off: %s", job->user_id, config_error.c_str());
            tell_user(err_msg, "spiderflow: SpiderFlow is off on this cluster (" + config_error +
                                   "), so this job, which asks for it (--llm-*), is not submitted; jobs without "
                                   "--llm-* options run as usual. Tell the cluster's admin");
            return ESLURM_NOT_SUPPORTED;
        }
        std::string why, warning;
        SiteRead read;
        auto site = cfg->enabled ? state().site.get(*cfg, &why, &warning, &read) : nullptr;
        // Not in the decision's time below: a read this job waited for (under slurmctld's
        // locks), or the agent's refresh, read beside the submit path, that it is the first to use.
        if (read.ms > 0) {
            slurm_info(read.waited ? "spiderflow: site state read in %.2f ms, %.2f ms of CPU (this job waited for it)"
                                   : "spiderflow: site state re-read in %.2f ms, %.2f ms of CPU, on its own thread (no job waited)",
                       read.ms, read.cpu_ms);
        }
        if (cfg->enabled && !site) {
            slurm_error("spiderflow: job of uid %u passes unplanned: %s", job->user_id, why.c_str());
            tell_user(err_msg, unplanned_note("the site's topology is not usable"));
            return SLURM_SUCCESS;
        }
        note_site_warning(warning);
        const SubmitDecision d = decide_submission(opts, slurm_request(job), site, *cfg);
        switch (d.outcome) {
            case Outcome::untouched:
                return SLURM_SUCCESS;
            case Outcome::fail_open:
                slurm_error("spiderflow: job of uid %u passes unplanned: %s (%.2f ms)", job->user_id, d.message.c_str(), d.planning_ms);
                tell_user(err_msg, unplanned_note(d.message));
                return SLURM_SUCCESS;
            case Outcome::reject:
                slurm_info("spiderflow: rejected job of uid %u: %s (%.2f ms)", job->user_id, d.message.c_str(), d.planning_ms);
                tell_user(err_msg, d.message);
                return reject_code(d.reject_kind);
            case Outcome::rewrite:
                if (d.rewrite.hold && job->script == nullptr) {
                    // salloc/srun would wait, holding the user's terminal, for a start minutes away.
                    tell_user(err_msg, "spiderflow: this job needs more GPUs than this cluster has and runs across "
                                       "clusters; submit it with sbatch (a cross-site job starts when every part can)");
                    return reject_code(RejectKind::no_fit);
                }
                apply_rewrite(job, d.rewrite, cfg->constrain_gpu_type);
                slurm_info("spiderflow: uid %u: %s (%.2f ms)", job->user_id, d.rewrite.summary.c_str(), d.planning_ms);
                tell_user(err_msg, d.rewrite.user_note);
                return SLURM_SUCCESS;
        }
        return SLURM_SUCCESS;
    } catch (const spiderflow::InputError& e) {
        // Only the user's own option values throw here (read_job_options).
        tell_user(err_msg, std::string("spiderflow: ") + e.what());
        return reject_code(RejectKind::spec);
    } catch (const std::exception& e) {
        slurm_error("spiderflow: internal error, job passes unchanged: %s", e.what());
        tell_user(err_msg, unplanned_note("internal error"));
        return SLURM_SUCCESS;
    } catch (...) {
        slurm_error("spiderflow: internal error, job passes unchanged");
        tell_user(err_msg, unplanned_note("internal error"));
        return SLURM_SUCCESS;
    }
}

// Changing a planned job's size would invalidate its plan; SpiderFlow leaves updates alone.
// Slurm 23.02 gave job_modify the error message argument job_submit has.
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
extern "C" int job_modify(job_desc_msg_t*, void*, uint32_t, char**) { return SLURM_SUCCESS; }
#else
extern "C" int job_modify(job_desc_msg_t*, void*, uint32_t) { return SLURM_SUCCESS; }
#endif
