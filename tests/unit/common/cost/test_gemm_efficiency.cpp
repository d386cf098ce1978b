// The GEMM shape model (common/cost/gemm_efficiency.h) against the measurements it was fitted to,
// and what it does to a layout's compute time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/cost/cost_parts.h"
#include "common/cost/flops.h"
#include "common/cost/gemm_efficiency.h"
#include "common/plan/sequential_layout.h"
#include "tests/unit/common/cost/cost_fixture.h"

using namespace spiderflow;

namespace {

struct Measured {
    int h, tp, tokens;
    std::string gemm;
    cost::GemmShape shape;
    double fraction;
};

// bench/results/gemm_shapes_h200.csv: h,tp,tokens,gemm,m,n,k,ms,tflops,fraction_of_peak.
std::vector<Measured> measured() {
    const char* dir = std::getenv("SF_SRCDIR");
    std::ifstream in(std::string(dir && *dir ? dir : ".") + "/bench/results/gemm_shapes_h200.csv");
    std::vector<Measured> out;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        std::stringstream row(line);
        std::vector<std::string> f;
        std::string cell;
        while (std::getline(row, cell, ',')) f.push_back(cell);
        if (f.size() != 10) continue;
        out.push_back({std::stoi(f[0]), std::stoi(f[1]), std::stoi(f[2]), f[3],
                       {std::stod(f[4]), std::stod(f[5]), std::stod(f[6])}, std::stod(f[9])});
    }
    return out;
}

}  // namespace

// The fit follows the 288 measured GEMMs: mean |error| under 5%, and no GEMM with all dimensions
// >= 2048 off by more than 25%. The worst fitted, 15-22% off: h 4096 at TP 1 with 2048-4096 tokens
// (measured 78-87%, above the 70-75% of every larger GEMM; short runs that finish before the H200
// settles at its power limit, we think) and h 5120 at TP 8 (1920-2560 wide: tile quantisation).
TEST(GemmShapes, FitFollowsTheMeasurements) {
    const auto rows = measured();
    ASSERT_EQ(rows.size(), 288u) << "bench/results/gemm_shapes_h200.csv not found or changed";
    double abs_err = 0;
    for (const auto& r : rows) {
        const double err = cost::gemm_fraction_of_peak(r.shape) / r.fraction - 1;
        abs_err += std::abs(err);
        if (r.shape.m >= 2048 && r.shape.n >= 2048 && r.shape.k >= 2048) {
            EXPECT_LT(std::abs(err), 0.25) << r.gemm << " h " << r.h << " tp " << r.tp << " tokens " << r.tokens;
        }
    }
    EXPECT_LT(abs_err / rows.size(), 0.05);
}

// What the data says: the output projection with k = h/t = 640 (h 5120, TP 8) reaches 42-52% of
// peak, below every GEMM of h >= 8192 at any TP degree (58-77%). The model must order them so.
TEST(GemmShapes, NarrowKLosesAgainstLargeHidden) {
    const auto rows = measured();
    ASSERT_FALSE(rows.empty());
    double worst_large = 1, best_narrow = 0, measured_worst_large = 1, measured_best_narrow = 0;
    for (const auto& r : rows) {
        const double predicted = cost::gemm_fraction_of_peak(r.shape);
        if (r.shape.k == 640) {
            best_narrow = std::max(best_narrow, predicted);
            measured_best_narrow = std::max(measured_best_narrow, r.fraction);
        } else if (r.h >= 8192) {
            worst_large = std::min(worst_large, predicted);
            measured_worst_large = std::min(measured_worst_large, r.fraction);
        }
    }
    ASSERT_LT(measured_best_narrow, measured_worst_large);  // the data itself
    EXPECT_LT(best_narrow, worst_large);
    // Wide GEMMs approach the asymptote; the factor never exceeds 1.
    EXPECT_GT(cost::gemm_shape_factor({8192, 49152, 16384}), 0.97);
    EXPECT_LE(cost::gemm_shape_factor({1e9, 1e9, 1e9}), 1.0);
}

// Megatron-LM's Table 1 layouts at TP 8: the wider h/t, the closer a layer runs to peak, which is
// why per-GPU throughput grows with model size. TP narrows the GEMMs of a given model.
TEST(GemmShapes, LayerFactorGrowsWithHiddenPerTpRank) {
    const double f18 = cost::layer_gemm_factor(sftest::megatron_gpt(40, 6144, 48), 2048, 1, 8);
    const double f145 = cost::layer_gemm_factor(sftest::megatron_gpt(80, 12288, 96), 2048, 1, 8);
    const double f1t = cost::layer_gemm_factor(sftest::megatron_gpt(128, 25600, 160), 2048, 1, 8);
    EXPECT_LT(f18, f145);
    EXPECT_LT(f145, f1t);
    const ModelArch m = sftest::megatron_gpt(32, 4096, 32);
    EXPECT_LT(cost::layer_gemm_factor(m, 2048, 1, 8), cost::layer_gemm_factor(m, 2048, 1, 1));
    // More tokens per micro-batch widen m.
    EXPECT_LT(cost::layer_gemm_factor(m, 2048, 1, 8), cost::layer_gemm_factor(m, 2048, 4, 8));
}

// The compute time of a micro-batch is the layer's FLOPs at peak x efficiency x the layer factor.
TEST(GemmShapes, MicroBatchComputeUsesTheLayerFactor) {
    const Topology t = sftest::make_topology({{"c", "A100-80GB", 1, 8}});
    const JobSpec job = sftest::job_of(sftest::megatron_gpt(4, 4096, 32), 8, 2048, Recompute::none);
    const Plan plan = make_sequential_plan(t, job, 8, 1, 1, 1);
    const double rate = 100e12;
    const cost::MicroBatchCompute c = cost::micro_batch_compute(plan, 0, rate);
    const double layers_s = 2048.0 * 4 * cost::layer_forward_flops_per_token(job.model, 2048) /
                            (rate * 8 * cost::layer_gemm_factor(job.model, 2048, 1, 8));
    const double logits_s = 2048.0 * cost::logits_forward_flops_per_token(job.model) /
                            (rate * 8 * cost::logits_gemm_factor(job.model, 2048, 1, 8));
    EXPECT_NEAR(c.forward_s / (layers_s + logits_s), 1.0, 1e-12);
    EXPECT_EQ(c.recompute_s, 0.0);
}
