// global-ilp's linear iteration-time proxy for one shape: what a stage costs on each cluster,
// what a replica crossing between two clusters costs, and what a stage's all-reduce costs over
// the link between two clusters it uses. The MILP (shape_milp.h) and the quick start layouts
// (start_layout.h) both read it, so the start point is scored exactly as the MILP scores it.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "common/planner/baselines/common/evaluator.h"

namespace spiderflow::global_ilp {

struct ShapeCosts {
    Shape shape;
    int micro_batches = 1;            // per replica and iteration
    std::vector<int> clusters;        // topology index of each position, most compute first
    std::vector<int> slots;           // tp-wide slots of each position
    std::vector<std::vector<double>> comp;  // [stage][position] compute seconds; inf when the stage does not fit its memory
    std::vector<std::vector<double>> pipe;  // [a][b] seconds per replica crossing a-b; 0 on the diagonal, inf unreachable
    std::vector<std::vector<double>> ring;  // [a][b] seconds per gradient byte of a DP ring over a-b (2/bandwidth), inf unreachable
    std::vector<double> grad;         // [stage] gradient bytes of one replica's stage
    // Objective: comp_weight * T_comp + T_pp + dp_weight * T_dp.
    double comp_weight = 1;
    double dp_weight = 0;

    int k() const { return static_cast<int>(clusters.size()); }
    int pp() const { return shape.pp; }
    int dp() const { return shape.dp; }
    // T_dp of stage s when it uses positions a and b.
    double dp_pair(int s, int a, int b) const {
        return grad[static_cast<size_t>(s)] * ring[static_cast<size_t>(a)][static_cast<size_t>(b)];
    }
};

// nullopt when `deadline` passes first: on 64 clusters the k^2 pair costs of one shape take a
// while, and a short limit must be honoured closely.
std::optional<ShapeCosts> shape_costs(baselines::Evaluator& eval, const Shape& shape,
                                      std::chrono::steady_clock::time_point deadline);
inline ShapeCosts shape_costs(baselines::Evaluator& eval, const Shape& shape) {
    return *shape_costs(eval, shape, std::chrono::steady_clock::time_point::max());
}

// The proxy's value for a layout: cells[stage * dp + replica] = position, pipelines as listed.
// +inf when the layout crosses an unreachable pair or overfills a cluster.
double proxy_objective(const ShapeCosts& c, const std::vector<int>& cells);

}  // namespace spiderflow::global_ilp
