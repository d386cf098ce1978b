// What a policy is asked to plan: the job and how the search may go. Light on purpose (the job
// spec and nothing else), so a front end's options (request_options.h) can share its parts.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/model/job_spec.h"

namespace spiderflow {

enum class Objective {
    iteration_time,        // shortest iteration time
    throughput_per_gpu,    // most tokens/s per GPU used
};

// to_string gives "iteration_time" / "throughput_per_gpu"; the reader also takes the CLI's short
// "time" / "throughput". Throws InputError(source, 0, field) naming the choices.
const char* to_string(Objective o);
Objective objective_from_string(const std::string& s, const std::string& source, const std::string& field);

// Where and how the search may go, as a user fixes it. A front end's options carry these very
// fields (RequestOptions derives from it too), so they reach the request as one piece.
struct SearchSettings {
    std::vector<std::string> allowed_clusters;   // empty = all
    std::vector<std::string> forbidden_clusters;
    std::optional<int> tp, pp, dp;               // fixed degrees, for users who know their layout
    double time_limit_s = 0;                     // 0 = the policy's default
    uint64_t seed = 1;

    auto operator<=>(const SearchSettings&) const = default;
};

struct PlanRequest : SearchSettings {
    JobSpec job;                                 // gpus + gpu_mode say how many GPUs
    Objective objective = Objective::iteration_time;
    std::optional<int> micro_batch;
    // The user allows DiLoCo beside synchronous training (--sync either): job.sync.mode is sync,
    // and a front end also plans DiLoCo with job.sync's settings and shows both
    // (common/planner/sync_compare.h). Never switches the mode by itself.
    bool compare_sync_modes = false;
    // Only these (tp, pp, dp, micro-batch) shapes, when set: plan_job's second search, with
    // activation recomputation, looks only at the shapes memory limited in the first, as
    // recomputation trades compute for memory and no other shape can gain from it.
    std::optional<std::vector<std::array<int, 4>>> only_shapes;
};

}  // namespace spiderflow
