// Cross-site shaping: a plan over several clusters makes this job the home cluster's part (its
// nodes, held until every part can start), and every part must be a request its own cluster can
// take (the same GPUs on each of its nodes). A part's ranks must be one contiguous range: the
// parts meet as RANK_BASE + local rank.
#pragma once

#include <optional>
#include <vector>

#include "common/plan/plan.h"
#include "common/plan/plan_parts.h"
#include "common/topology/topology.h"
#include "services/slurmjob/submit_stop.h"

namespace spiderflow::slurmjob {

std::optional<Stop> shape_cross_site(const Plan& plan, const std::vector<PlanPart>& parts, int cluster, const Cluster& here,
                                     const SlurmRequest& req, GpuCountMode mode, SubmitRewrite* r);

}  // namespace spiderflow::slurmjob
