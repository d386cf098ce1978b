#include "plugins/select/cons_tres_ops.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "plugins/plugin_dir.h"

// Only in slurmctld and Slurm's own commands (libslurmfull); a libslurm.so client lacks it.
extern "C" const char* node_select_syms[] __attribute__((weak));

namespace spiderflow::plugin {
namespace {

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
    if (node_select_syms == nullptr) {
        fatal("spiderflow: select/spiderflow_cons_tres: this program has no select interface table "
              "(it links the public libslurm); SelectType=select/spiderflow_cons_tres works in slurmctld and Slurm's commands");
    }
    // slurm_select_ops_t is a row of pointers in node_select_syms' order: the way Slurm's
    // plugin_context_create fills it.
    void** slot = reinterpret_cast<void**>(&g_ops);
    const size_t n = sizeof(g_ops) / sizeof(void*);
    for (size_t i = 0; i < n; ++i) {
        slot[i] = dlsym(g_handle, node_select_syms[i]);
        if (slot[i] == nullptr) fatal("spiderflow: select/spiderflow_cons_tres: select/cons_tres lacks %s", node_select_syms[i]);
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
