// Planning policies behind one interface, built by name (policy_factory.cpp validates names).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libspiderflow/cost/cost_model.h"
#include "libspiderflow/model/job_spec.h"
#include "libspiderflow/plan/plan.h"
#include "libspiderflow/topology/topology.h"

namespace spiderflow {

enum class Objective {
    iteration_time,        // shortest iteration time
    throughput_per_gpu,    // most tokens/s per GPU used
};

struct PlanRequest {
    JobSpec job;                                 // gpus + gpu_mode say how many GPUs
    Objective objective = Objective::iteration_time;
    std::vector<std::string> allowed_clusters;   // empty = all
    std::vector<std::string> forbidden_clusters;
    std::optional<int> tp, pp, dp;               // fixed degrees, for users who know their layout
    std::optional<int> micro_batch;
    double time_limit_s = 0;                     // 0 = the policy's default
    uint64_t seed = 1;
    // The user allows DiLoCo beside synchronous training (--sync either): job.sync.mode is sync,
    // and a front end also plans DiLoCo with job.sync's settings and shows both
    // (libspiderflow/planner/sync_compare.h). Never switches the mode by itself.
    bool compare_sync_modes = false;
};

struct PlanResult {
    Plan plan;                                   // plan.prediction filled by the cost model
    bool hit_limit = false;                      // a time/trial limit cut the search short
    std::string note;                            // e.g. CBC status, runner-up summary
    // The best layout of a different shape/orientation, for "why this beat the runner-up".
    std::optional<Plan> runner_up;
};

class PlannerPolicy {
public:
    virtual ~PlannerPolicy() = default;
    virtual std::string name() const = 0;
    // Deterministic for equal inputs and seed. Throws InfeasibleError naming the constraint
    // that failed (and what would fit) when no layout exists.
    virtual PlanResult plan(const PlanRequest& request, const CostModel& cost) const = 0;
};

// Names: spinsearch (default), global-ilp, genetic, greedy, first-fit, exhaustive.
// Throws InputError listing the valid names on an unknown one.
std::unique_ptr<PlannerPolicy> make_planner(const std::string& name);
std::vector<std::string> planner_names();
// to_string gives "iteration_time" / "throughput_per_gpu"; the reader also takes the CLI's short
// "time" / "throughput". Throws InputError(source, 0, field) naming the choices.
const char* to_string(Objective o);
Objective objective_from_string(const std::string& s, const std::string& source, const std::string& field);

}  // namespace spiderflow
