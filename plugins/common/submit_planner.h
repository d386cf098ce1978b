// What job_submit decides for one job, without any Slurm type, so it is unit-testable:
// untouched (no SpiderFlow options), rewrite (planned), reject (the user's spec is wrong or
// cannot fit: message says what and what would fit), or fail_open (our problem: pass unchanged).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/topology/topology.h"
#include "plugins/common/job_options.h"
#include "plugins/common/site_config.h"
#include "plugins/common/tres.h"

namespace spiderflow::plugin {

enum class Outcome { untouched, rewrite, reject, fail_open };
const char* to_string(Outcome o);

struct SubmitRewrite {
    int nodes = 0;
    int gpus_per_node = 0;
    int num_tasks = 0;
    int tasks_per_node = 0;           // 0 when tasks are not spread evenly
    std::string gpu_type;             // for the constraint, when the site asks for it
    std::vector<std::pair<std::string, std::string>> job_env;  // SPIDERFLOW_* for the steps
    // Slurm's own request variables in the job's environment, made to describe the rewritten
    // request: sbatch/salloc export SLURM_GPUS=<--gpus>, and an srun inside the job re-reads it as
    // its step's request (on fewer nodes: "Invalid generic resource specification").
    std::vector<std::string> slurm_env_unset;
    std::vector<std::pair<std::string, std::string>> slurm_env;
    std::string plan_path;            // plan JSON under state_dir; empty when it could not be written
    std::string summary;              // one line for logs and AdminComment
};

struct SubmitDecision {
    Outcome outcome = Outcome::untouched;
    SubmitRewrite rewrite;
    std::string message;              // reject: for the user; fail_open: for the log
    double planning_ms = 0;
    bool from_cache = false;          // the same request on the same topology was decided before
};

// requested_gpus: what the job asked for with --gpus / --gpus-per-node x nodes, if anything.
// Never throws. Decisions for planned specs are cached per topology object (see the .cpp).
SubmitDecision decide_submission(const JobOptions& options, std::optional<int> requested_gpus,
                                 const std::shared_ptr<const Topology>& topology, const SiteConfig& config);

// Planner threads still running (abandoned at the budget or not yet done). The plugin's fini()
// waits for them, so the .so is never unloaded under a running thread.
int planner_threads_running();

}  // namespace spiderflow::plugin
