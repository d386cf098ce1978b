// The interleaved pipeline schedule as a planner choice: after a layout is found, its pipeline
// may run Megatron-LM's interleaved 1F1B with V model chunks per GPU, which cuts the bubble V-fold
// and sends V times as many activations between stages. Cheap across a fast fabric, dear across
// a WAN link: the cost model decides, for the layouts Megatron can interleave whose pipelines
// stay inside one site.
#pragma once

#include <string>

#include "common/cost/cost_model.h"
#include "common/planner/plan_request.h"

namespace spiderflow {

// Gives `plan` the chunk count that predicts best for `objective` among those Megatron can run
// (virtual_stages_problem): its own layer split, or the even one when the layers divide by pp.
// Keeps the plan as it is when nothing beats it, and DiLoCo plans (torchtitan's launch sets no
// schedule). Returns a note when it changed the plan, else "".
std::string choose_virtual_stages(Plan& plan, Objective objective, const CostModel& cost);

}  // namespace spiderflow
