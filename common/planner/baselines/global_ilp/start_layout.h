// A good first layout for each shape's MILP, found in well under a millisecond per shape: fill
// clusters in order (by compute, and nearest-first around every cluster), once stage-major (DP
// inside clusters, pipelines across) and once replica-major (pipelines inside clusters, DP
// across), and keep the fill the proxy scores best. CBC starts from it, and its proxy value
// bounds which variables the MILP needs at all (shape_milp.h).
#pragma once

#include <vector>

#include "common/planner/baselines/global_ilp/shape_costs.h"

namespace spiderflow::global_ilp {

struct StartLayout {
    std::vector<int> cells;  // position per (stage * dp + replica); empty when no fill fits
    double objective = 0;    // proxy_objective(cells)
};

StartLayout best_start_layout(const ShapeCosts& c);

}  // namespace spiderflow::global_ilp
