#include <dlfcn.h>

#include <string>

#include "plugins/spank/spank_state.h"
#include "plugins/spank/stepd_hooks.h"

namespace spiderflow::plugin::spank {
namespace {

using CallFn = int (*)(int, spank_t, PluginState*);
using AbiFn = int (*)();

// Beside this plugin's own file: libtool's .libs/ in the build tree, PluginDir when installed.
std::string default_path() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&default_path), &info) == 0 || info.dli_fname == nullptr) return "spiderflow_stepd.so";
    std::string self = info.dli_fname;
    const auto slash = self.rfind('/');
    return (slash == std::string::npos ? std::string() : self.substr(0, slash + 1)) + "spiderflow_stepd.so";
}

CallFn load() {
    static CallFn fn = []() -> CallFn {
        const PluginState& st = plugin_state();
        const std::string path = st.plugin_arg_remote.empty() ? default_path() : st.plugin_arg_remote;
        void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (h == nullptr) {
            slurm_error("spiderflow: cannot load %s (%s); steps start without SpiderFlow ranks", path.c_str(), dlerror());
            return nullptr;
        }
        auto abi = reinterpret_cast<AbiFn>(dlsym(h, "spiderflow_stepd_abi"));
        auto call = reinterpret_cast<CallFn>(dlsym(h, "spiderflow_stepd_call"));
        if (abi == nullptr || call == nullptr || abi() != kStepdAbi) {
            slurm_error("spiderflow: %s is not from this SpiderFlow build; steps start without SpiderFlow ranks", path.c_str());
            return nullptr;
        }
        return call;
    }();
    return fn;
}

}  // namespace

int call_stepd(StepdHook hook, spank_t sp) {
    const CallFn fn = load();
    return fn == nullptr ? 0 : fn(static_cast<int>(hook), sp, &plugin_state());
}

}  // namespace spiderflow::plugin::spank
