// SPANK plugin "spiderflow": a thin dispatcher on spank_context(). What sbatch, salloc and srun
// need (options, the config, reading --llm-plan's file) lives in this .so; what slurmstepd and
// slurmd need (topology, rank layout, NCCL settings, traffic classes) lives in
// spiderflow_stepd.so, loaded only there (stepd_hooks.h), so client commands stay fast. No
// exception leaves a SPANK entry point, and no entry point fails a job or step for our sake.
#include <cstdlib>
#include <exception>

extern "C" {
#include <slurm/slurm_version.h>
#include <slurm/spank.h>
}

#include "plugins/spank/spank_state.h"
#include "plugins/spank/stepd_hooks.h"

extern "C" {
extern const char plugin_name[] = "spiderflow";
extern const char plugin_type[] = "spank";
extern const unsigned int plugin_version = SLURM_VERSION_NUMBER;
extern const unsigned int spank_plugin_version = 1;
}

namespace sfs = spiderflow::plugin::spank;

namespace {

template <typename F>
int guarded(const char* where, F&& f) {
    try {
        return f();
    } catch (const std::exception& e) {
        slurm_error("spiderflow: %s: %s", where, e.what());
    } catch (...) {
        slurm_error("spiderflow: %s: internal error", where);
    }
    return -1;
}

}  // namespace

extern "C" int slurm_spank_init(spank_t sp, int ac, char** av) {
    // Fails only when the options cannot be registered (then sbatch would reject --llm-* anyway).
    return guarded("init", [&] {
        sfs::load_plugin_config(ac, av);
        return sfs::register_options(sp);
    });
}

extern "C" int slurm_spank_init_post_opt(spank_t sp, int ac, char** av) {
    (void)ac;
    (void)av;
    const spank_context_t ctx = spank_context();
    // A bad option value or plan file is the user's to fix: the command stops with our message.
    // Slurm would follow a failed init_post_opt with two lines blaming the plugin stack ("required
    // plugin ... failed", "post-option processing failed") and then exit 1; nothing is submitted
    // yet, so the command ends here the same way, with only our line.
    if (ctx == S_CTX_ALLOCATOR || ctx == S_CTX_LOCAL) {
        if (guarded("init_post_opt", [&] { return sfs::client_post_opt(sp); }) != 0) std::exit(1);
        return 0;
    }
    if (ctx != S_CTX_REMOTE || !sfs::is_spiderflow_step(sp)) return 0;
    // slurmstepd, still root and before the tasks fork: the step's rank layout (and the plan of
    // salloc/srun jobs). Here and not in user_init: since 23.02 user_init runs with Slurm's auth
    // lock held, and the RPCs this needs (the plan, rank 0's NodeAddr) would kill slurmstepd.
    if (guarded("init_post_opt", [&] { return sfs::call_stepd(sfs::StepdHook::step_prepare, sp); }) != 0) {
        slurm_error("spiderflow: step starts without the job's plan");
    }
    return 0;
}

extern "C" int slurm_spank_task_init(spank_t sp, int ac, char** av) {
    (void)ac;
    (void)av;
    // A task must not die for our sake: if the ranks cannot be worked out, it starts with
    // Slurm's own variables and the log says why.
    // The one exception: a task that would run a cross-site job's part alone (kStepdEndTask;
    // the task has said why on its stderr), which Slurm ends with exit status 1.
    if (!sfs::is_spiderflow_step(sp)) return 0;
    const int rc = guarded("task_init", [&] { return sfs::call_stepd(sfs::StepdHook::task_init, sp); });
    if (rc == sfs::kStepdEndTask) return -1;
    if (rc != 0) slurm_error("spiderflow: task starts without SpiderFlow ranks");
    return 0;
}

// slurmstepd, as root, after a task ended: a cross-site part's failed batch script waits for the
// verdict that names the part that ended the job (context_remote_verdict.cpp).
extern "C" int slurm_spank_task_exit(spank_t sp, int ac, char** av) {
    (void)ac;
    (void)av;
    if (spank_remote(sp) != 1 || !sfs::is_spiderflow_step(sp)) return 0;
    guarded("task_exit", [&] { return sfs::call_stepd(sfs::StepdHook::task_exit, sp); });
    return 0;
}

// slurmd prolog/epilog context, as root: the job's WAN traffic class (context_job_script.cpp).
// Slurm does not call slurm_spank_init there (checked with 22.05.8), so the hooks load the
// config themselves. Never fail: a failing prolog/epilog drains the node.
extern "C" int slurm_spank_job_prolog(spank_t sp, int ac, char** av) {
    guarded("job_prolog", [&] {
        sfs::load_plugin_config(ac, av);
        return sfs::plugin_state().config.traffic_control ? sfs::call_stepd(sfs::StepdHook::job_prolog, sp) : 0;
    });
    return 0;
}

extern "C" int slurm_spank_job_epilog(spank_t sp, int ac, char** av) {
    guarded("job_epilog", [&] {
        sfs::load_plugin_config(ac, av);
        return sfs::plugin_state().config.traffic_control ? sfs::call_stepd(sfs::StepdHook::job_epilog, sp) : 0;
    });
    return 0;
}
