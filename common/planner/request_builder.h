// One builder of a planning request from a front end's options: `spiderflow plan`, job_submit
// (sbatch --llm-*) and the broker fill RequestOptions and get the same PlanRequest, with the
// same checks and messages, each message naming the option as that front end spells it.
#pragma once

#include <memory>
#include <string>

#include "common/model/catalog.h"
#include "common/model/job_spec.h"
#include "common/planner/planner.h"
#include "common/planner/request_options.h"

namespace spiderflow {

// Throws InputError(source, 0, field = the option as `names` spells it, problem) for a missing
// or bad value, an unknown model (listing the known ones) or an unknown objective.
PlanRequest build_plan_request(const RequestOptions& options, const Catalog& catalog, const OptionNames& names,
                               const std::string& source);

// Applies the sync options of `o` (sync, inner_steps, outer_precision, streaming) to `job`;
// `spiderflow estimate` shares it. Returns true for "either" (job stays sync). Throws InputError
// naming the option for a bad value, or for a DiLoCo setting without diloco or either.
bool apply_sync_options(const RequestOptions& o, JobSpec& job, const OptionNames& names, const std::string& source);

// The planner to plan with, built once: policy `name`, or `fallback` when empty. Throws
// InputError(source, 0, names.policy, ...) listing the policies on an unknown name.
std::unique_ptr<PlannerPolicy> checked_planner(const std::string& name, const std::string& fallback,
                                               const OptionNames& names, const std::string& source);
// The same check, for a caller that wants the name: `name`, or `fallback` when empty.
std::string checked_policy_name(const std::string& name, const std::string& fallback, const OptionNames& names,
                                const std::string& source);

}  // namespace spiderflow
