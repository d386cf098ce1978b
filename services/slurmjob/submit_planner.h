// What job_submit decides for one job, without any Slurm type, so it is unit-testable:
// untouched (no SpiderFlow options), rewrite (planned), reject (the user's spec is wrong or
// cannot fit: message says what and what would fit), or fail_open (our problem: pass unchanged,
// and the user is told).
#pragma once

#include <compare>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/topology/topology.h"
#include "services/slurmjob/job_options.h"
#include "services/slurmjob/plan_summary.h"
#include "services/slurmjob/spiderflow_conf.h"
#include "services/slurmjob/submit_site.h"
#include "services/slurmjob/tres.h"

namespace spiderflow::slurmjob {

enum class Outcome { untouched, rewrite, reject, fail_open };
const char* to_string(Outcome o);

// What a rejected request got wrong; job_submit maps it to the Slurm error whose text fits,
// since sbatch prints that text after our message.
enum class RejectKind { spec, gpus, gpu_count_missing, nodes, tasks, no_fit };

// What the job itself asked of Slurm, each only when the user said it: explicit choices are
// constraints of the plan, never silently overridden.
struct SlurmRequest {
    std::optional<int> gpus;             // --gpus, or --gpus-per-node x -N
    std::optional<int> gpus_per_node;    // --gpus-per-node / --gres=gpu:N
    std::string gpu_type;                // --gpus=TYPE:N: kept in the rewritten request
    std::string gpus_text;               // the GPU request as written, for messages
    bool gpu_count_missing = false;      // --gpus=abc: a type without a count
    std::optional<int> nodes;            // -N
    std::optional<int> ntasks;           // -n
    std::optional<int> ntasks_per_node;  // --ntasks-per-node

    auto operator<=>(const SlurmRequest&) const = default;
};

struct SubmitRewrite {
    int nodes = 0;
    int gpus_per_node = 0;
    int num_tasks = 0;
    int tasks_per_node = 0;           // always set: Slurm gets one layout it cannot get wrong
    std::string gpu_type;             // for the constraint, when the site asks for it
    std::string slurm_gpu_type;       // the user's own --gpus=TYPE, kept in the GPU request
    std::vector<std::pair<std::string, std::string>> job_env;  // SPIDERFLOW_* for the steps
    // Slurm's own request variables in the job's environment, made to describe the rewritten
    // request: sbatch/salloc export SLURM_GPUS=<--gpus>, and an srun inside the job re-reads it as
    // its step's request (on fewer nodes: "Invalid generic resource specification").
    std::vector<std::string> slurm_env_unset;
    std::vector<std::pair<std::string, std::string>> slurm_env;
    // A cross-site plan: this job is the home cluster's part, held until the broker has every
    // part's cluster ready (the agent releases it into its reservation); `parts` is every
    // cluster's share in plan order, for the agent to hand on.
    bool hold = false;
    std::vector<SummaryPart> parts;
    std::string summary;              // one line for logs and AdminComment
    std::string user_note;            // one line for the user's sbatch/salloc/srun
};

struct SubmitDecision {
    Outcome outcome = Outcome::untouched;
    SubmitRewrite rewrite;
    std::string message;              // reject: for the user; fail_open: for the log
    RejectKind reject_kind = RejectKind::spec;
    double planning_ms = 0;
    bool from_cache = false;          // the same request on the same topology was decided before
};

// Never throws. Plans on site->usable; decisions for planned specs are cached per site object
// and DecisionKey (decision_cache.cpp), so a new topology or snapshot misses.
SubmitDecision decide_submission(const JobOptions& options, const SlurmRequest& request,
                                 const std::shared_ptr<const SubmitSite>& site, const SpiderflowConf& config);

// The same decision, made afresh: what decide_submission() runs on a cache miss.
SubmitDecision decide_uncached(const JobOptions& options, const SlurmRequest& request,
                               const std::shared_ptr<const SubmitSite>& site, const SpiderflowConf& config);

// Everything a decision depends on besides the site: the cache key. Compared member by member
// (defaulted), so a field added to the options, the Slurm request or the config is part of the
// key without anyone listing it.
struct DecisionKey {
    JobOptions options;
    SlurmRequest request;
    SpiderflowConf config;

    auto operator<=>(const DecisionKey&) const = default;
};
// The key of a decision; a job that names no policy is keyed as naming the config's.
DecisionKey decision_key(const JobOptions& options, const SlurmRequest& request, const SpiderflowConf& config);

// What a user is told when their SpiderFlow job passes unplanned through our fault.
std::string unplanned_note(const std::string& why);

// Planner threads still running (abandoned at the budget or not yet done), and a join of all of
// them: the plugin's fini() joins, so the .so is never unloaded under a running thread.
int planner_threads_running();
void join_planner_threads();

}  // namespace spiderflow::slurmjob
