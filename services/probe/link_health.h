// Which links a running job was planned on have since been measured well below it: the job runs
// slower than its plan said, and an admin or user may want to requeue it on a new plan. The plan
// gives the narrowest inter-cluster path it used (SPIDERFLOW_WAN_GBPS) and its clusters
// (SPIDERFLOW_CLUSTERS); the federation gives the measured figures.
#pragma once

#include <string>
#include <vector>

#include "common/site/site_state.h"

namespace spiderflow::probe {

struct DegradedLink {
    std::string a, b;
    double measured_Bps = 0;
    double planned_Bps = 0;    // the narrowest path the plan used
    SiteTime measured_at = 0;
    std::string source;
};

// Every direct link between two of `clusters` whose measurement is below fraction x planned_Bps.
// Declared (unmeasured) links are never flagged: nothing new is known about them. Unknown cluster
// names are skipped (a federation that has since dropped one).
std::vector<DegradedLink> degraded_links(const SiteState& state, const std::vector<std::string>& clusters,
                                         double planned_Bps, double fraction);

}  // namespace spiderflow::probe
