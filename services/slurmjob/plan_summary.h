// The one-line plan summary job_submit attaches to a planned job (its AdminComment). For salloc
// and srun jobs it is also the channel back to the job's steps: job_submit cannot reach their
// environment, so srun reads the summary from slurmctld and hands the plan to its tasks.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace spiderflow {
struct Plan;
}

namespace spiderflow::slurmjob {

// One cluster's share of a cross-site plan, in plan order: "alpha:2x8:16" in the summary.
struct SummaryPart {
    std::string cluster;
    int nodes = 0, gpus_per_node = 0, ranks = 0;
};

struct PlanSummary {
    std::string model;
    int tp = 0, pp = 0, dp = 0, micro_batch = 0;
    int nodes = 0, gpus_per_node = 0;
    double iteration_s = 0;
    // The plan itself (plan_transport.h encoding) when it is small enough for an AdminComment
    // (slurmdbd keeps it in a TEXT column); empty otherwise.
    std::string plan_data;
    // A cross-site plan: every cluster's part (job_submit), the links it crosses, and once the
    // broker has placed every part, this part's place in the one world (the agent adds these
    // when it releases the held home part: Slurm lets nobody change a pending job's environment).
    std::vector<SummaryPart> parts;
    std::string clusters, wan_rtt_ms, wan_gbps;
    // A cross-site job's choice should a part fail: runs after failures (0 = end at the first)
    // and whether a new plan may change tp and pp (--llm-on-failure, --llm-replan).
    int failure_requeues = 0;
    bool replan_any = false;
    std::string xjob;
    int xjob_part = -1, rank_base = 0, world = 0;
    std::string master_addr;
    int master_port = 0;
};

// Largest carried plan put in an AdminComment.
constexpr size_t kMaxSummaryPlanBytes = 16u << 10;

// The summary of `plan` on this cluster's `nodes` x `gpus_per_node`: model, degrees and the
// predicted iteration time, with `carried_plan` (the plan_transport.h text of the plan) when it
// is at most kMaxSummaryPlanBytes. The cross-site words (parts, clusters, WAN figures) and the
// rendezvous are left for whoever knows them.
PlanSummary plan_summary_of(const Plan& plan, int nodes, int gpus_per_node, const std::string& carried_plan = "");

std::string format_plan_summary(const PlanSummary& s);
// False when TEXT is not a summary written by format_plan_summary (e.g. an admin's comment).
bool parse_plan_summary(const std::string& text, PlanSummary* out);
// The rendezvous words the agent appends to a home part's summary (" xjob=... master=...").
std::string format_rendezvous(const std::string& xjob, int part, int rank_base, int world, const std::string& master_addr,
                              int master_port);
// The SPIDERFLOW_* variables a step needs, as job_submit puts them in a batch job's environment.
std::vector<std::pair<std::string, std::string>> summary_step_env(const PlanSummary& s);

}  // namespace spiderflow::slurmjob
