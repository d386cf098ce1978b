// The one-line plan summary job_submit attaches to a planned job (its AdminComment). For salloc
// and srun jobs it is also the channel back to the job's steps: job_submit cannot reach their
// environment, so srun reads the summary from slurmctld and hands the plan to its tasks.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace spiderflow::slurmjob {

struct PlanSummary {
    std::string model;
    int tp = 0, pp = 0, dp = 0, micro_batch = 0;
    int nodes = 0, gpus_per_node = 0;
    double iteration_s = 0;
    // The plan itself (plan_transport.h encoding) when it is small enough for an AdminComment
    // (slurmdbd keeps it in a TEXT column); empty otherwise.
    std::string plan_data;
};

// Largest carried plan put in an AdminComment.
constexpr size_t kMaxSummaryPlanBytes = 16u << 10;

std::string format_plan_summary(const PlanSummary& s);
// False when TEXT is not a summary written by format_plan_summary (e.g. an admin's comment).
bool parse_plan_summary(const std::string& text, PlanSummary* out);
// The SPIDERFLOW_* variables a step needs, as job_submit puts them in a batch job's environment.
std::vector<std::pair<std::string, std::string>> summary_step_env(const PlanSummary& s);

}  // namespace spiderflow::slurmjob
