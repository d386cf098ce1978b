// sbatch/salloc, and srun when it creates its own job: options not given on the command line may
// come from SPIDERFLOW_* variables; they go into the job's control environment under the names
// Slurm uses for command-line options, so job_submit reads both the same way. --llm-plan's file is
// read here, as the user, and only its content travels: slurmctld never opens a path a user names.
#include <cstdlib>

#include "common/plan/plan_transport.h"
#include "common/util/errors.h"
#include "plugins/spank/spank_state.h"

namespace spiderflow::plugin::spank {
namespace {

int pass_env_options(spank_t sp, PluginState& st) {
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
        if (spank_job_control_setenv(sp, spank_option_var(o.name).c_str(), env, 1) != ESPANK_SUCCESS) {
            slurm_error("spiderflow: cannot pass %s to the job", o.env);
            return -1;
        }
    }
    return 0;
}

int pass_plan_content(spank_t sp, const PluginState& st) {
    if (st.options.plan_file.empty()) return 0;
    std::string encoded;
    try {
        encoded = encode_plan_text(read_plan_file(st.options.plan_file), st.options.plan_file, "--llm-plan");
    } catch (const InputError& e) {
        slurm_error("spiderflow: %s", e.what());
        return -1;
    }
    if (spank_job_control_setenv(sp, env::kPlanContent, encoded.c_str(), 1) != ESPANK_SUCCESS) {
        slurm_error("spiderflow: cannot pass the plan in %s to the job", st.options.plan_file.c_str());
        return -1;
    }
    return 0;
}

}  // namespace

int client_post_opt(spank_t sp) {
    PluginState& st = plugin_state();
    // An srun inside a job starts a step, not a job: nothing goes to job_submit.
    if (spank_context() == S_CTX_LOCAL && std::getenv("SLURM_JOB_ID") != nullptr) return 0;
    if (pass_env_options(sp, st) != 0) return -1;
    if (!st.options.any()) return 0;
    if (!st.config_error.empty()) {
        slurm_error("spiderflow: this host's SpiderFlow configuration is broken (%s); your options go to slurmctld "
                    "unchanged, which plans the job or says why it cannot",
                    st.config_error.c_str());
    }
    return pass_plan_content(sp, st);
}

}  // namespace spiderflow::plugin::spank
