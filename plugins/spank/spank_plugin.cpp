// SPANK plugin "spiderflow": a thin dispatcher on spank_context(); each context's work lives in
// its own file. No exception leaves a SPANK entry point.
#include <exception>

extern "C" {
#include <slurm/slurm_version.h>
#include <slurm/spank.h>
}

#include "plugins/spank/context_remote_plan.h"
#include "plugins/spank/spank_state.h"

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
    return guarded("init", [&] {
        if (!sfs::load_plugin_config(ac, av)) return -1;
        if (sfs::register_options(sp) != 0) return -1;
        if (spank_context() == S_CTX_REMOTE) return sfs::remote_init(sp);
        return 0;
    });
}

extern "C" int slurm_spank_init_post_opt(spank_t sp, int ac, char** av) {
    (void)ac;
    (void)av;
    return guarded("init_post_opt", [&] {
        if (spank_context() == S_CTX_ALLOCATOR) return sfs::allocator_post_opt(sp);
        return 0;
    });
}

// slurmstepd, before the tasks fork: salloc/srun jobs get their plan here (context_remote_plan.cpp).
extern "C" int slurm_spank_user_init(spank_t sp, int ac, char** av) {
    (void)ac;
    (void)av;
    const int rc = guarded("user_init", [&] { return sfs::remote_user_init(sp); });
    return rc == 0 ? 0 : (slurm_error("spiderflow: step starts without the job's plan"), 0);
}

extern "C" int slurm_spank_task_init(spank_t sp, int ac, char** av) {
    (void)ac;
    (void)av;
    // A task must not die for our sake: if the ranks cannot be worked out, it starts with
    // Slurm's own variables and the log says why.
    const int rc = guarded("task_init", [&] { return sfs::remote_task_init(sp); });
    return rc == 0 ? 0 : (slurm_error("spiderflow: task starts without SpiderFlow ranks"), 0);
}

// slurmd prolog/epilog context, as root: the job's WAN traffic class (context_job_script.cpp).
// Slurm does not call slurm_spank_init there (checked with 22.05.8), so the hooks load the
// config themselves. Never fail: a failing prolog/epilog drains the node.
extern "C" int slurm_spank_job_prolog(spank_t sp, int ac, char** av) {
    guarded("job_prolog", [&] { return sfs::load_plugin_config(ac, av) ? sfs::job_script_prolog(sp) : -1; });
    return 0;
}

extern "C" int slurm_spank_job_epilog(spank_t sp, int ac, char** av) {
    guarded("job_epilog", [&] { return sfs::load_plugin_config(ac, av) ? sfs::job_script_epilog(sp) : -1; });
    return 0;
}
