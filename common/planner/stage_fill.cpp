#include "common/planner/stage_fill.h"

#include <cstddef>

namespace spiderflow {

std::vector<int> fill_whole_stages(const std::vector<std::pair<int, int>>& order, int pp, int dp) {
    std::vector<int> cells(static_cast<std::size_t>(pp) * dp, -1);
    std::vector<int> free;
    for (const auto& [cluster, slots] : order) free.push_back(slots);
    int stage = 0;
    for (std::size_t k = 0; k < order.size() && stage < pp; ++k) {
        while (stage < pp && free[k] >= dp) {
            for (int r = 0; r < dp; ++r) cells[static_cast<std::size_t>(stage) * dp + r] = order[k].first;
            free[k] -= dp;
            ++stage;
        }
    }
    std::size_t k = 0;
    for (; stage < pp; ++stage) {
        for (int r = 0; r < dp; ++r) {
            while (k < order.size() && free[k] == 0) ++k;
            if (k >= order.size()) return {};
            cells[static_cast<std::size_t>(stage) * dp + r] = order[k].first;
            --free[k];
        }
    }
    return cells;
}

}  // namespace spiderflow
