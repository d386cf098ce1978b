// Where a queued job starts, as each policy of the evaluation decides: the planner's policies
// over the whole federation, and two baselines that run the way sites run today.
//   slurm-alone       each job on its home cluster only, first-fit (Slurm without us)
//   slurm-federation  Slurm federation's rule: the whole job on one cluster, the first that can
//                     start it (it is queued on every sibling; the earliest start wins)
//   spinsearch, global-ilp, genetic, greedy, first-fit, exhaustive
//                     the planner policy of that name over every cluster (cross-site allowed)
//   oracle            per decision, the fastest plan any planner policy finds (not charged)
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "services/fedsim/job_trace.h"
#include "common/model/catalog.h"
#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow::fedsim {

struct PlaceAttempt {
    std::optional<Plan> plan;        // empty: the job cannot start on this view
    std::string why;                 // when empty: the planner's reason
    double wall_s = 0;               // planner time spent on the attempt
    int planner_calls = 0;
    bool hit_limit = false;          // a planner call's time limit cut its search short
    std::string found_by;            // the oracle's: which search found the plan
};

class PlacementPolicy {
public:
    virtual ~PlacementPolicy() = default;
    virtual std::string name() const = 0;
    // The queue a job waits in: its home cluster's for policies that never leave it, one
    // federation-wide queue ("") otherwise. A job blocks only the jobs behind it in its queue.
    virtual std::string queue_of(const TraceJob& job) const;
    // Whether the federation scheduler may hold a job back from a slow placement now in the
    // hope of a fast one soon (fed_simulator.h, "waiting for a better placement"). Slurm's own
    // rules start a job wherever it fits first.
    virtual bool waits_for_better() const { return true; }
    // Plans `job` on `view`, a finalized topology whose nodes hold the GPUs free now. A plan's
    // cells address the view's clusters and nodes, which are the federation's.
    virtual PlaceAttempt place(const Topology& view, const TraceJob& job, const Catalog& catalog) const = 0;
};

// planner_time_limit_s: each planner call's limit; 0 = the policy's default.
// Throws InputError listing the names for an unknown one.
std::unique_ptr<PlacementPolicy> make_placement(const std::string& name, double planner_time_limit_s, uint64_t seed);
std::vector<std::string> placement_names();

}  // namespace spiderflow::fedsim
