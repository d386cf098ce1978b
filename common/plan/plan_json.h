// The plan as versioned JSON (schema documented in doc/plan-schema.md). Readers of a plan
// (SPANK plugin, launch, coflow model) and writers (planner CLI, job_submit) share this.
#pragma once

#include <string>

#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow {

// Writes cluster and node *names* (from topology) next to indices so that a plan is readable
// and can be checked against the live topology later.
std::string plan_to_json(const Plan& plan, const Topology& topology, int indent = 2);
// Throws InputError naming the field on a malformed, wrong-version or ill-formed plan
// (Plan::validate). Names are resolved against topology when given (indices must then agree,
// and the cells' GPUs must exist and not overlap), else indices are taken as written.
Plan plan_from_json(const std::string& text, const std::string& source, const Topology* topology = nullptr);

}  // namespace spiderflow
