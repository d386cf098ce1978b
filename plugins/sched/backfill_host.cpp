#include "plugins/sched/backfill_host.h"

#include <dlfcn.h>

#include <string>

#include "plugins/plugin_dir.h"
#include "plugins/slurm_internal.h"

namespace spiderflow::plugin {
namespace {

void* g_handle = nullptr;
int (*g_init)() = nullptr;
void (*g_fini)() = nullptr;
int (*g_reconfig)() = nullptr;

}  // namespace

int start_backfill() {
    std::string tried, why;
    g_handle = dlopen_from_plugindir("sched_backfill.so", RTLD_LAZY | RTLD_LOCAL, &tried, &why);
    if (g_handle == nullptr) {
        error("spiderflow: sched/spiderflow: cannot load sched/backfill (%s): %s", tried.c_str(), why.c_str());
        return SLURM_ERROR;
    }
    g_init = reinterpret_cast<int (*)()>(dlsym(g_handle, "init"));
    g_fini = reinterpret_cast<void (*)()>(dlsym(g_handle, "fini"));
    g_reconfig = reinterpret_cast<int (*)()>(dlsym(g_handle, "sched_p_reconfig"));
    if (g_init == nullptr || g_fini == nullptr || g_reconfig == nullptr) {
        error("spiderflow: sched/spiderflow: sched_backfill.so lacks init, fini or sched_p_reconfig");
        dlclose(g_handle);
        g_handle = nullptr;
        return SLURM_ERROR;
    }
    return g_init();
}

void reconfigure_backfill() {
    if (g_reconfig != nullptr) g_reconfig();
}

void stop_backfill() {
    if (g_handle == nullptr) return;
    g_fini();
    dlclose(g_handle);
    g_handle = nullptr;
    g_init = nullptr;
    g_fini = nullptr;
    g_reconfig = nullptr;
}

}  // namespace spiderflow::plugin
