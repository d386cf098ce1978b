#include "plugins/select/cons_tres_ops.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "plugins/plugin_dir.h"

// Only in slurmctld and Slurm's own commands (libslurmfull); a libslurm.so client lacks it.
extern "C" const char* node_select_syms[] __attribute__((weak));

namespace spiderflow::plugin {
namespace {

// The same names in the same order (22.05's src/common/select.c), for programs linked with the
// public libslurm.so (the agent, `spiderflow launch` and `job-plan` unpacking a job or node).
// Slurm's own select/cray_aries carries such a copy for the same reason.
const char* const kSelectSyms[] = {
    "plugin_id", "select_p_state_save", "select_p_state_restore", "select_p_job_init", "select_p_node_init",
    "select_p_job_test", "select_p_job_begin", "select_p_job_ready", "select_p_job_expand", "select_p_job_resized",
    "select_p_job_signal", "select_p_job_fini", "select_p_job_suspend", "select_p_job_resume", "select_p_step_pick_nodes",
    "select_p_step_start", "select_p_step_finish", "select_p_select_nodeinfo_pack", "select_p_select_nodeinfo_unpack",
    "select_p_select_nodeinfo_alloc", "select_p_select_nodeinfo_free", "select_p_select_nodeinfo_set_all",
    "select_p_select_nodeinfo_set", "select_p_select_nodeinfo_get", "select_p_select_jobinfo_alloc",
    "select_p_select_jobinfo_free", "select_p_select_jobinfo_set", "select_p_select_jobinfo_get",
    "select_p_select_jobinfo_copy", "select_p_select_jobinfo_pack", "select_p_select_jobinfo_unpack",
    "select_p_select_jobinfo_sprint", "select_p_select_jobinfo_xstrdup", "select_p_get_info_from_plugin",
    "select_p_update_node_config", "select_p_reconfigure", "select_p_resv_test",
};
static_assert(sizeof(kSelectSyms) / sizeof(kSelectSyms[0]) == sizeof(slurm_select_ops_t) / sizeof(void*),
              "slurm_select_ops_t of the configured Slurm source has another number of entry points");

std::once_flag g_bound;
void* g_handle = nullptr;
bool g_we_loaded = false;   // cons_tres was not in PluginDir's listing: we loaded and init()ed it
slurm_select_ops_t g_ops{};

void bind() {
    std::string tried, why;
    g_handle = dlopen_from_plugindir("select_cons_tres.so", RTLD_LAZY | RTLD_NOLOAD, &tried, &why);
    if (g_handle == nullptr) {
        g_handle = dlopen_from_plugindir("select_cons_tres.so", RTLD_LAZY, &tried, &why);
        if (g_handle == nullptr) fatal("spiderflow: select/spiderflow_cons_tres: select/cons_tres not found in PluginDir (%s): %s",
                                       tried.c_str(), why.c_str());
        auto init = reinterpret_cast<int (*)()>(dlsym(g_handle, "init"));
        if (init == nullptr || init() != SLURM_SUCCESS) fatal("spiderflow: select/spiderflow_cons_tres: select/cons_tres init failed");
        g_we_loaded = true;
    }
    const char* const* names = node_select_syms != nullptr ? node_select_syms : kSelectSyms;
    // slurm_select_ops_t is a row of pointers in node_select_syms' order: the way Slurm's
    // plugin_context_create fills it.
    void** slot = reinterpret_cast<void**>(&g_ops);
    const size_t n = sizeof(g_ops) / sizeof(void*);
    for (size_t i = 0; i < n; ++i) {
        slot[i] = dlsym(g_handle, names[i]);
        if (slot[i] == nullptr) fatal("spiderflow: select/spiderflow_cons_tres: select/cons_tres lacks %s", names[i]);
    }
    // Every Slurm command loads select plugins too: only slurmctld says so at info level.
    if (running_in_slurmctld()) {
        info("spiderflow: select/spiderflow_cons_tres forwards to select/cons_tres (plugin id %u)", *g_ops.plugin_id);
    }
}

}  // namespace

// Called for every node and job Slurm packs or tests: after the first call, no lock.
const slurm_select_ops_t& cons_tres() {
    std::call_once(g_bound, bind);
    return g_ops;
}

// fini, when no other call can be in flight.
void release_cons_tres() {
    if (g_handle == nullptr) return;
    if (g_we_loaded) {
        if (auto fini = reinterpret_cast<int (*)()>(dlsym(g_handle, "fini"))) fini();
    }
    dlclose(g_handle);
    g_handle = nullptr;
    g_we_loaded = false;
}

}  // namespace spiderflow::plugin
