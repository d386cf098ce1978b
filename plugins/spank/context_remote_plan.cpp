// A batch job's steps find the plan in the job's environment (job_submit put it there). An
// salloc or srun job has no such environment, so slurmstepd asks slurmctld for the job's plan
// summary (AdminComment, written by job_submit) and puts SPIDERFLOW_TP/PP/DP/PLAN into the step's
// environment, where task_init turns them into ranks and coordinates. This runs in init_post_opt
// (once per step and node, as root before the tasks fork, outside Slurm's auth lock): srun's
// local context cannot set the tasks' environment. One RPC per step and node, only for
// SpiderFlow steps without the plan.
#include <string>

#include "plugins/spank/stepd_state.h"
#include "services/launch/launch_contract.h"
#include "services/slurm_api/slurm_api.h"
#include "services/slurmjob/plan_summary.h"

namespace spiderflow::plugin::spank {

namespace {

// The variables a cross-site part's place in the world adds (the rest is the plan's).
bool rendezvous_name(const std::string& name) {
    return name == env::kXJob || name == env::kXJobPart || name == env::kRankBase || name == env::kWorldSize ||
           name == env::kMasterAddr || name == env::kMasterPort || name == env::kAttempt;
}

}  // namespace

int remote_plan_from_slurmctld(spank_t sp) {
    if (spank_remote(sp) != 1) return 0;
    const PluginState& st = plugin_state();
    if (!st.config.enabled) return 0;
    // Inside a planned batch job the environment already holds the plan; a cross-site job's
    // home part still needs its place in the world, which the agent wrote into the AdminComment
    // when it released the job (no one can change a pending job's environment).
    const bool has_plan = !planned_getenv(sp, env::kTp).empty();
    const bool home_part = !planned_getenv(sp, env::kXJobHome).empty() && planned_getenv(sp, env::kRankBase).empty();
    if (has_plan && !home_part) return 0;
    if (!has_plan && !st.options.any()) return 0;  // not a SpiderFlow job
    uint32_t job_id = 0;
    if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || job_id == 0) return 0;
    job_info_msg_t* info = nullptr;
    if (slurm_api::load_job(&info, job_id, SHOW_ALL) != SLURM_SUCCESS || info == nullptr) {
        slurm_error("spiderflow: cannot read job %u's plan from slurmctld; tasks start without it", job_id);
        return 0;
    }
    std::string comment;
    if (info->record_count > 0 && info->job_array[0].admin_comment != nullptr) comment = info->job_array[0].admin_comment;
    slurm_free_job_info_msg(info);
    PlanSummary summary;
    if (!parse_plan_summary(comment, &summary)) return 0;  // not planned (e.g. failed open)
    for (const auto& [k, v] : summary_step_env(summary)) {
        if (has_plan && !rendezvous_name(k)) continue;
        spank_setenv(sp, k.c_str(), v.c_str(), 0);
    }
    if (home_part && !summary.xjob.empty()) {
        // What a script that starts torchrun itself reads, as in the other clusters' parts.
        spank_setenv(sp, "MASTER_ADDR", summary.master_addr.c_str(), 1);
        spank_setenv(sp, "MASTER_PORT", std::to_string(summary.master_port).c_str(), 1);
        spank_setenv(sp, "WORLD_SIZE", std::to_string(summary.world).c_str(), 1);
    } else if (home_part) {
        // Only the agent releases a home part, once every part can start; a user's `scontrol
        // release` before that would run this part alone, a world with ranks missing.
        stepd_state().refusal = "job " + std::to_string(job_id) +
                                " is the home part of a cross-site job and was released before every part could start "
                                "(the agent releases it when the broker has placed all parts; `scontrol release` cannot "
                                "start a cross-site job). It ends here; submit it again and leave it held: `spiderflow jobs` "
                                "follows it";
        slurm_error("spiderflow: %s", stepd_state().refusal.c_str());
    }
    return 0;
}

}  // namespace spiderflow::plugin::spank
