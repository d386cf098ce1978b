// The plan of a running SpiderFlow job, found the way the job carries it: a batch job's
// environment (job_submit put SPIDERFLOW_PLAN_DATA there), else the job's AdminComment from
// slurmctld (salloc and srun jobs, whose environment job_submit cannot reach).
#pragma once

#include <string>

namespace spiderflow::cli {

struct JobPlanText {
    std::string json;     // the plan JSON
    std::string source;   // where it came from, for messages
};

// job_id empty: $SLURM_JOB_ID. Throws InputError saying what is missing (not in a job, job not
// planned, plan too large to carry in an AdminComment).
JobPlanText job_plan_text(const std::string& job_id = "");

}  // namespace spiderflow::cli
