// spiderflow_stepd.so's C ABI: the hooks the SPANK plugin hands over in slurmstepd and slurmd.
// No exception leaves it.
#include <exception>

#include "plugins/spank/stepd_hooks.h"
#include "plugins/spank/stepd_state.h"

namespace spiderflow::plugin::spank {
namespace {
PluginState* g_plugin = nullptr;
}

PluginState& plugin_state() { return *g_plugin; }

StepdState& stepd_state() {
    static StepdState s;
    return s;
}

}  // namespace spiderflow::plugin::spank

namespace sfs = spiderflow::plugin::spank;

extern "C" int spiderflow_stepd_abi(void) { return sfs::kStepdAbi; }

extern "C" int spiderflow_stepd_call(int hook, spank_t sp, sfs::PluginState* state) {
    if (state == nullptr) return 0;
    sfs::g_plugin = state;
    try {
        switch (static_cast<sfs::StepdHook>(hook)) {
            case sfs::StepdHook::step_prepare:
                if (!sfs::stepd_state().topology) sfs::remote_init(sp);
                sfs::remote_plan_from_slurmctld(sp);
                return sfs::remote_step_layout(sp);
            case sfs::StepdHook::task_init: return sfs::remote_task_init(sp);
            case sfs::StepdHook::job_prolog: return sfs::job_script_prolog(sp);
            case sfs::StepdHook::job_epilog: return sfs::job_script_epilog(sp);
            case sfs::StepdHook::task_exit: return sfs::remote_task_exit(sp);
        }
    } catch (const std::exception& e) {
        slurm_error("spiderflow: step hook %d: %s", hook, e.what());
    } catch (...) {
        slurm_error("spiderflow: step hook %d: internal error", hook);
    }
    return -1;
}
