// Recomputation granularity (Megatron-LM's --recompute-granularity full|selective) and sequence
// parallelism: what each changes in compute, TP communication and activation memory.
#include <gtest/gtest.h>

#include "common/cost/cost_parts.h"
#include "common/cost/flops.h"
#include "common/cost/gemm_efficiency.h"
#include "common/cost/memory.h"
#include "common/plan/sequential_layout.h"
#include "common/util/errors.h"
#include "tests/unit/common/cost/cost_fixture.h"

using namespace spiderflow;

namespace {

class RecomputeTest : public ::testing::Test {
protected:
    Topology topo = sftest::make_topology({{"c", "A100-80GB", 2, 8}});
    // 8 layers, h 4096, 32 heads; tp 8, pp 2: four layers per stage.
    JobSpec job = sftest::job_of(sftest::megatron_gpt(8, 4096, 32), 16, 2048, Recompute::full);
    Plan plan = make_sequential_plan(topo, job, 8, 2, 1, 1);

    // The plan with the job's memory choices set as given.
    Plan with(Recompute how, bool sequence_parallel = false) const {
        Plan p = plan;
        p.job.recompute = how;
        p.job.sequence_parallel = sequence_parallel;
        return p;
    }
    cost::CellTimes times(Recompute how, bool sequence_parallel = false) const {
        return cost::cell_times(CostModel(topo, Catalog::builtin()), with(how, sequence_parallel));
    }
};

}  // namespace

// Selective recomputation repeats only QK^T and AV: 4*s*h FLOPs per token and layer, at the
// attention core's shape factor; full repeats the whole layer forward.
TEST_F(RecomputeTest, SelectiveRepeatsOnlyTheAttentionCore) {
    const double rate = 100e12;
    const auto full = cost::micro_batch_compute(with(Recompute::full), 0, rate);
    const auto selective = cost::micro_batch_compute(with(Recompute::selective), 0, rate);
    EXPECT_DOUBLE_EQ(full.forward_s, selective.forward_s);
    EXPECT_DOUBLE_EQ(full.recompute_s, full.forward_s);  // stage 0 has no logits
    const double expected = 4 * 2048.0 * cost::attention_core_forward_flops_per_token(job.model, 2048) /
                            (rate * 8 * cost::attention_core_gemm_factor(job.model, 2048));
    EXPECT_NEAR(selective.recompute_s / expected, 1.0, 1e-12);
    EXPECT_LT(selective.recompute_s, 0.25 * full.recompute_s);
    EXPECT_EQ(cost::micro_batch_compute(with(Recompute::none), 0, rate).recompute_s, 0.0);
}

// Full recomputation repeats the forward's two TP all-reduces per layer (6 instead of 4); the
// attention core that selective recomputation repeats sits between them and communicates nothing.
TEST_F(RecomputeTest, OnlyFullRecomputeRepeatsTpAllReduces) {
    const auto full = times(Recompute::full);
    const auto selective = times(Recompute::selective);
    ASSERT_GT(selective.tp_s[0], 0.0);
    EXPECT_NEAR(full.tp_s[0] / selective.tp_s[0], 6.0 / 4.0, 1e-12);
    EXPECT_DOUBLE_EQ(times(Recompute::none).tp_s[0], selective.tp_s[0]);
    EXPECT_LT(selective.compute_s[0], full.compute_s[0]);
}

// Megatron's sequence parallelism replaces each all-reduce by a reduce-scatter and an all-gather
// of the same ring volume: TP time does not change.
TEST_F(RecomputeTest, SequenceParallelKeepsTpTime) {
    EXPECT_DOUBLE_EQ(times(Recompute::full, true).tp_s[0], times(Recompute::full).tp_s[0]);
}

// Korthikanti et al. 2022, Table 2: per layer, full recomputation keeps 2*s*b*h bytes, selective
// s*b*h*(10 + 24/t) (the 5*a*s/h attention term is what it recomputes), none s*b*h*(10 + 24/t +
// 5*a*s/(h*t)); with sequence parallelism selective keeps s*b*h*34/t.
TEST_F(RecomputeTest, SelectiveDropsTheAttentionScoresFromMemory) {
    const double s = 2048, b = 1, h = 4096, a = 32, t = 8;
    const auto bytes = [&](Recompute how, bool sp) { return cost::layer_activation_bytes(with(how, sp).job, 1, 8); };
    EXPECT_DOUBLE_EQ(bytes(Recompute::full, false), 2 * s * b * h);
    EXPECT_DOUBLE_EQ(bytes(Recompute::full, true), 2 * s * b * h);   // only the input either way
    EXPECT_DOUBLE_EQ(bytes(Recompute::selective, false), s * b * h * (10 + 24 / t));
    EXPECT_DOUBLE_EQ(bytes(Recompute::selective, true), s * b * h * 34 / t);
    EXPECT_DOUBLE_EQ(bytes(Recompute::none, false), s * b * h * (10 + 24 / t + 5 * a * s / (h * t)));
    EXPECT_DOUBLE_EQ(bytes(Recompute::none, true), s * b * h * (10 / t + 24 / t + 5 * a * s / (h * t)));
}

// The hardware FLOPs (what the GPUs execute, not MFU's model FLOPs) count what each recomputes.
TEST_F(RecomputeTest, HardwareFlopsCountWhatIsRecomputed) {
    const double model = cost::model_flops_per_iteration(with(Recompute::none).job);
    EXPECT_DOUBLE_EQ(cost::hardware_flops_per_iteration(with(Recompute::none).job), model);
    const double selective = cost::hardware_flops_per_iteration(with(Recompute::selective).job);
    const double full = cost::hardware_flops_per_iteration(with(Recompute::full).job);
    EXPECT_GT(selective, model);
    EXPECT_LT(selective - model, 0.25 * (full - model));
}
