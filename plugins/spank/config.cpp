// plugstack.conf arguments and spiderflow.conf, strict: an unknown argument or key refuses to load.
#include <sys/stat.h>

#include <cstring>
#include <exception>

#include "plugins/spank/spank_state.h"

namespace spiderflow::plugin::spank {

PluginState& plugin_state() {
    static PluginState s;
    return s;
}

bool load_plugin_config(int argc, char** argv) {
    std::string conf_arg;
    for (int i = 0; i < argc; ++i) {
        if (std::strncmp(argv[i], "conf=", 5) == 0) {
            conf_arg = argv[i] + 5;
        } else {
            slurm_error("spiderflow: unknown plugstack.conf argument '%s' (known: conf=PATH)", argv[i]);
            return false;
        }
    }
    const std::string path = site_config_path(conf_arg);
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        plugin_state().config = SiteConfig{};  // no site file: defaults
        return true;
    }
    try {
        plugin_state().config = load_site_config(path);
        return true;
    } catch (const std::exception& e) {
        slurm_error("spiderflow: %s", e.what());
        return false;
    }
}

std::string job_getenv(spank_t sp, const char* name) {
    char buf[4096];
    if (spank_getenv(sp, name, buf, sizeof buf) != ESPANK_SUCCESS) return {};
    return buf;
}

}  // namespace spiderflow::plugin::spank
