// A cross-site part whose batch script fails may only have lost its peers: another part was
// cancelled or lost a node, and this part's ranks died with "Connection closed by peer". Which
// part ended the job, and why, is known to the broker, not here. So the batch step tells the
// agent at once (the part's comment, part_comment.h) and waits, bounded by part_failure_wait, for
// the verdict: the agent prints it on this job's output (scontrol notify reaches the batch step's
// stderr only while the step lives) and ends the job. Runs in slurmstepd as root after the batch
// script exited, before the step completes.
#include <unistd.h>

#include <chrono>
#include <string>

#include "plugins/spank/stepd_state.h"
#include "services/launch/launch_contract.h"
#include "services/slurm_api/slurm_api.h"
#include "services/slurmjob/part_comment.h"

namespace spiderflow::plugin::spank {

namespace {

// The job's comment and whether it still runs; false when slurmctld cannot say.
bool read_job(uint32_t job_id, std::string* comment, bool* running) {
    job_info_msg_t* info = nullptr;
    if (slurm_api::load_job(&info, job_id, SHOW_ALL) != SLURM_SUCCESS || info == nullptr) return false;
    const bool found = info->record_count > 0;
    if (found) {
        const slurm_job_info_t& j = info->job_array[0];
        *comment = j.comment != nullptr ? j.comment : "";
        const uint32_t base = j.job_state & JOB_STATE_BASE;
        *running = (base == JOB_RUNNING || base == JOB_SUSPENDED) && (j.job_state & JOB_COMPLETING) == 0;
    }
    slurm_free_job_info_msg(info);
    return found;
}

}  // namespace

int remote_task_exit(spank_t sp) {
    uint32_t step = 0, job_id = 0;
    int status = 0;
    if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS || step != SLURM_BATCH_SCRIPT) return 0;
    const std::string xjob = planned_getenv(sp, env::kXJob);
    if (xjob.empty()) return 0;
    if (spank_get_item(sp, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS || status == 0) return 0;
    const double wait_s = plugin_state().config.part_failure_wait_s;
    if (wait_s <= 0 || spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS) return 0;

    std::string comment;
    bool running = false;
    PartComment part;
    if (!read_job(job_id, &comment, &running) || !running || !parse_part_comment(comment, &part)) return 0;
    part.ended = exit_words(status);
    std::string marked = format_part_comment(part);
    job_desc_msg_t d = slurm_api::update_of(job_id);
    d.comment = marked.data();
    if (slurm_update_job(&d) != SLURM_SUCCESS) {
        slurm_error("spiderflow: cannot tell the agent that this part's batch script ended (%s): %s", part.ended.c_str(),
                    slurm_api::last_error().c_str());
        return 0;
    }
    slurm_error("spiderflow: this part of cross-site job %s: its batch script ended (%s); waiting up to %.0f s for the "
                "verdict (which part ended the job, and why)",
                xjob.c_str(), part.ended.c_str(), wait_s);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
    while (std::chrono::steady_clock::now() < deadline) {
        ::sleep(1);
        // The agent's notify (the verdict) lands on the output, then it ends the job.
        if (read_job(job_id, &comment, &running) && !running) return 0;
    }
    slurm_error("spiderflow: no verdict for cross-site job %s within %.0f s; `spiderflow jobs %s` says which part ended it "
                "and why",
                xjob.c_str(), wait_s, xjob.c_str());
    return 0;
}

}  // namespace spiderflow::plugin::spank
