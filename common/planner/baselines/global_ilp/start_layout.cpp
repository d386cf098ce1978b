#include "common/planner/baselines/global_ilp/start_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace spiderflow::global_ilp {
namespace {

// Cells in order, each taking the first cluster along `order` with a slot left whose GPUs hold
// the cell's stage: clusters fill one after the other.
std::vector<int> fill(const ShapeCosts& c, const std::vector<int>& order, bool stage_major) {
    const int pp = c.pp(), dp = c.dp();
    std::vector<int> cells(static_cast<size_t>(pp) * dp, -1);
    std::vector<int> left = c.slots;
    for (int i = 0; i < pp * dp; ++i) {
        const int stage = stage_major ? i / dp : i % pp;
        const int replica = stage_major ? i % dp : i / pp;
        int& cell = cells[static_cast<size_t>(stage) * dp + replica];
        for (int p : order)
            if (left[static_cast<size_t>(p)] > 0 && !std::isinf(c.comp[static_cast<size_t>(stage)][static_cast<size_t>(p)])) {
                cell = p;
                --left[static_cast<size_t>(p)];
                break;
            }
        if (cell < 0) return {};
    }
    return cells;
}

}  // namespace

StartLayout best_start_layout(const ShapeCosts& c) {
    const int k = c.k();
    std::vector<std::vector<int>> orders;
    std::vector<int> by_compute(static_cast<size_t>(k));
    std::iota(by_compute.begin(), by_compute.end(), 0);  // positions are sorted by compute already
    orders.push_back(by_compute);
    for (int seed = 0; seed < k; ++seed) {
        // Nearest first around the seed (cheapest pipeline crossing), compute order on ties.
        std::vector<int> order = by_compute;
        const auto& row = c.pipe[static_cast<size_t>(seed)];
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            if (a == seed || b == seed) return a == seed && b != seed;
            return row[static_cast<size_t>(a)] < row[static_cast<size_t>(b)];
        });
        orders.push_back(std::move(order));
    }
    StartLayout best;
    best.objective = std::numeric_limits<double>::infinity();
    for (const auto& order : orders)
        for (bool stage_major : {true, false}) {
            std::vector<int> cells = fill(c, order, stage_major);
            if (cells.empty()) continue;
            const double v = proxy_objective(c, cells);
            if (v < best.objective) {
                best.objective = v;
                best.cells = std::move(cells);
            }
        }
    if (best.cells.empty()) best.objective = 0;
    return best;
}

}  // namespace spiderflow::global_ilp
