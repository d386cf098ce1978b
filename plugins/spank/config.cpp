// plugstack.conf arguments and spiderflow.conf. Strict about what they say (an unknown argument
// or key is an error, never silently a default) but never fatal: an error turns SpiderFlow off
// on this host and says so, while every job and step still runs.
#include <sys/stat.h>

#include <cstring>
#include <exception>

#include "plugins/slurm_conf_file.h"
#include "plugins/spank/spank_state.h"

namespace spiderflow::plugin::spank {

PluginState& plugin_state() {
    static PluginState s;
    return s;
}

namespace {

void turn_off(PluginState& st, const std::string& why) {
    st.config = SpiderflowConf{};
    st.config.enabled = false;
    st.config_error = why;
    // sbatch, salloc and srun of every user load this plugin: only a user who asked for
    // SpiderFlow hears of it (client_post_opt); the daemons' logs always do.
    const spank_context_t ctx = spank_context();
    if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR) return;
    slurm_error("spiderflow: SpiderFlow is OFF on this host: %s", why.c_str());
}

}  // namespace

void load_plugin_config(int argc, char** argv) {
    PluginState& st = plugin_state();
    std::string conf_arg;
    for (int i = 0; i < argc; ++i) {
        if (std::strncmp(argv[i], "conf=", 5) == 0) {
            conf_arg = argv[i] + 5;
        } else if (std::strncmp(argv[i], "stepd=", 6) == 0) {
            st.plugin_arg_remote = argv[i] + 6;
        } else {
            turn_off(st, std::string("unknown plugstack.conf argument '") + argv[i] + "' (known: conf=PATH, stepd=PATH)");
            return;
        }
    }
    const std::string path = site_conf_path(conf_arg);
    struct stat st_buf {};
    if (::stat(path.c_str(), &st_buf) != 0) {
        st.config = SpiderflowConf{};  // no site file: defaults
        st.config_error.clear();
        return;
    }
    try {
        st.config = load_spiderflow_conf(path);
        st.config_error.clear();
    } catch (const std::exception& e) {
        turn_off(st, e.what());
    }
}

}  // namespace spiderflow::plugin::spank
