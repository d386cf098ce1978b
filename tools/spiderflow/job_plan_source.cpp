#include "tools/spiderflow/job_plan_source.h"

#include <cstdlib>

#include "common/plan/plan_transport.h"
#include "common/util/errors.h"
#include "common/util/parse_number.h"
#include "services/launch/launch_contract.h"
#include "services/slurm_api/slurm_api.h"
#include "services/slurmjob/plan_summary.h"

namespace spiderflow::cli {
namespace {

std::string env(const std::string& name) {
    const char* v = std::getenv(name.c_str());
    return v != nullptr ? v : "";
}

std::string admin_comment(const std::string& job_id) {
    const auto id = to_int<uint32_t>(job_id, 1);
    if (!id) throw InputError("job-plan", 0, "JOBID", "not a job id: '" + job_id + "'");
    slurm_api::init_client();
    job_info_msg_t* info = nullptr;
    if (slurm_api::load_job(&info, *id, SHOW_ALL) != SLURM_SUCCESS || info == nullptr) {
        throw InputError("job-plan", 0, "JOBID", "slurmctld does not know job " + job_id);
    }
    std::string comment;
    if (info->record_count > 0 && info->job_array[0].admin_comment != nullptr) comment = info->job_array[0].admin_comment;
    slurm_free_job_info_msg(info);
    return comment;
}

}  // namespace

JobPlanText job_plan_text(const std::string& job_id_arg) {
    const std::string own = env("SLURM_JOB_ID");
    const std::string job_id = job_id_arg.empty() ? own : job_id_arg;
    if (job_id.empty()) {
        throw InputError("job-plan", 0, "JOBID", "not inside a Slurm job: give a job id, or --plan FILE");
    }
    if (job_id == own) {
        for (const std::string& name : {std::string("SLURM_SPANK_") + env::kPlanData, std::string(env::kPlanData)}) {
            const std::string data = env(name);
            if (!data.empty()) return {decode_plan_text(data, "$" + name, name), "$" + name};
        }
    }
    slurmjob::PlanSummary summary;
    if (!slurmjob::parse_plan_summary(admin_comment(job_id), &summary)) {
        throw InputError("job-plan", 0, "JOBID", "job " + job_id + " was not planned by SpiderFlow");
    }
    if (summary.plan_data.empty()) {
        throw InputError("job-plan", 0, "JOBID", "job " + job_id + "'s plan was too large to carry in its AdminComment; "
                                                 "use the plan file it was submitted with (--plan FILE)");
    }
    return {decode_plan_text(summary.plan_data, "job " + job_id, "AdminComment"), "job " + job_id + "'s AdminComment"};
}

}  // namespace spiderflow::cli
