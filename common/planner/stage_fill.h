// Atlas's placement rule (Palak et al. 2024), one home for the greedy baseline and SpinSearch:
// whole pipeline stages per cluster (every data-parallel replica of a stage in one cluster) along
// a cluster order, passing over a cluster too small for a whole stage, the stages left over
// spread over whatever is free in the same order.
#pragma once

#include <utility>
#include <vector>

namespace spiderflow {

// `order`: (cluster, free TP slots) in the order to fill. Returns the cluster of every cell
// (index stage * dp + replica); empty when the slots run out.
std::vector<int> fill_whole_stages(const std::vector<std::pair<int, int>>& order, int pp, int dp);

}  // namespace spiderflow
