// sbatch/salloc: options not given on the command line may come from SPIDERFLOW_* variables;
// they are put in the job's control environment under the same names Slurm uses for
// command-line options, so job_submit reads both the same way.
#include <cstdlib>

#include "common/util/errors.h"
#include "plugins/spank/spank_state.h"

namespace spiderflow::plugin::spank {

int allocator_post_opt(spank_t sp) {
    PluginState& st = plugin_state();
    for (const auto& o : option_table()) {
        bool given = false;
        for (const auto& g : st.options_given) given = given || g == o.name;
        const char* env = std::getenv(o.env);
        if (given || env == nullptr || *env == '\0') continue;
        try {
            set_job_option(st.options, o.name, env);
        } catch (const InputError& e) {
            slurm_error("spiderflow: %s (from %s)", e.what(), o.env);
            return -1;
        }
        if (spank_job_control_setenv(sp, spank_option_var(o.name).c_str(), env, 0) != ESPANK_SUCCESS) {
            slurm_error("spiderflow: cannot pass %s to the job", o.env);
            return -1;
        }
    }
    return 0;
}

}  // namespace spiderflow::plugin::spank
