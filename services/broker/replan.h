// A cross-site job queued again after a failure, planned anew on the broker's view of the
// federation: the same job (model, batch and GPUs of the plan it carries), on what is left (the
// clusters that fell silent and the nodes lost are left out), with the measured links the view
// holds. The tensor and pipeline degrees stay, so the user's checkpoint loads as saved, unless
// the job allows any layout (--llm-replan=any). The co-allocator calls it (coalloc::Replanner).
#pragma once

#include <string>

#include "common/site/site_state.h"
#include "services/coalloc/xjob.h"

namespace spiderflow::broker {

struct ReplanSettings {
    std::string policy = "spinsearch";
    double time_limit_s = 2;  // the broker decides under its one lock
};

// Sets job.parts (new specs, plan order) and job.step_env from the new plan; returns why it
// cannot (no carried plan, nothing fits without what failed, a layout Slurm cannot run as one
// job per cluster), leaving the job as it was. Never throws.
std::string replan_xjob(coalloc::XJob& job, const SiteState& federation, const ReplanSettings& settings = {});

}  // namespace spiderflow::broker
