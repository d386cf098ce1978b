// Request reconciliation: the user's --llm-* options, the job's own Slurm request and the cluster
// as the site state leaves it, made one plan, or a Stop naming what disagrees or cannot fit.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/plan/plan.h"
#include "common/planner/planner.h"
#include "services/slurmjob/submit_site.h"
#include "services/slurmjob/submit_stop.h"

namespace spiderflow::slurmjob {

// --llm-plan: the content the user's sbatch read (slurmctld never opens the path), validated
// here like any input from a user; sync options that disagree with the plan are named.
std::optional<Stop> plan_from_content(const JobOptions& opts, const Topology& topo, Plan* plan);

// Plans on `here` as the site state leaves it usable (`full` is the same cluster in the topology):
// drained and down nodes hold no GPUs there, since Slurm would never start the job on them; busy
// ones keep theirs, since the job queues behind them.
// `federation_free`: GPUs free now across the federation, when the agent's snapshot says.
// `asked`: the request and planner the plan came from, for the comparison with its alternatives.
struct PlannedFrom {
    PlanRequest request;
    std::shared_ptr<const PlannerPolicy> planner;
};
// `out_note`: the other clusters that offer no node now, and why (clusters_out), for a request
// that cannot be planned across the federation; asked only then (it walks every node).
std::optional<Stop> plan_from_spec(const JobOptions& opts, const SlurmRequest& req, const Cluster& here, const Cluster& full,
                                   const std::shared_ptr<const Topology>& usable, std::optional<int> federation_free,
                                   const std::function<std::string()>& out_note, const SpiderflowConf& cfg, Plan* plan,
                                   PlannedFrom* asked);

// "; offering no node now: beta (reason)": every other cluster whose GPU nodes are all drained
// or down in the agent's snapshot, with the first node's reason; empty when none.
std::string clusters_out(const SubmitSite& site, int here);

}  // namespace spiderflow::slurmjob
