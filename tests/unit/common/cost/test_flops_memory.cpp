// FLOP counts and memory per GPU against hand calculations on a small model.
#include <gtest/gtest.h>

#include "common/cost/comm.h"
#include "common/cost/flops.h"
#include "common/cost/memory.h"
#include "common/plan/sequential_layout.h"
#include "tests/unit/common/small_model.h"
#include "tests/unit/common/cost/cost_fixture.h"

using namespace spiderflow;

namespace {
// 4 layers, h=64, 4 heads, FFN 256 (plain), vocab 1000, untied.
ModelArch small_model() { return spiderflow::test::dense_model("small", 4, 64, 4, 256, 1000); }
}  // namespace

TEST(Flops, HandCountedSmallModel) {
    const ModelArch m = small_model();
    // 2 * (Q,K,V,O 4*64*64 + FFN 2*64*256) + QK^T and AV 4*s*h with s = 128.
    EXPECT_DOUBLE_EQ(cost::layer_forward_flops_per_token(m, 128), 2.0 * (4 * 64 * 64 + 2 * 64 * 256) + 4.0 * 128 * 64);
    EXPECT_DOUBLE_EQ(cost::logits_forward_flops_per_token(m), 2.0 * 64 * 1000);
    JobSpec j = sftest::job_of(m, 8, 128, Recompute::none);
    const double tokens = 8.0 * 128;
    const double fwd = 4 * 131072.0 + 128000.0;
    EXPECT_DOUBLE_EQ(cost::model_flops_per_iteration(j), 3.0 * fwd * tokens);
    EXPECT_DOUBLE_EQ(cost::hardware_flops_per_iteration(j), 3.0 * fwd * tokens);
    j.recompute = Recompute::full;  // one more forward of the layers, not of the logits
    EXPECT_DOUBLE_EQ(cost::hardware_flops_per_iteration(j), 3.0 * fwd * tokens + 4 * 131072.0 * tokens);
}

TEST(Flops, MoeCountsOnlyActiveExperts) {
    const ModelArch& mx = *Catalog::builtin().model("mixtral-8x7b");
    ModelArch dense = mx;
    dense.experts = 0;
    dense.experts_per_token = 0;
    const double f_moe = cost::layer_forward_flops_per_token(mx, 1);
    const double f_dense = cost::layer_forward_flops_per_token(dense, 1);
    // Two experts' FFN plus the router instead of one FFN.
    EXPECT_DOUBLE_EQ(f_moe - f_dense, 2.0 * (3.0 * 4096 * 14336 + 4096.0 * 8));
}

TEST(Comm, RingFormulas) {
    EXPECT_DOUBLE_EQ(cost::ring_allreduce_s(8e9, 4, 1e9, 0.001), 2.0 * 3.0 / 4.0 * 8.0 + 6 * 0.001);
    EXPECT_DOUBLE_EQ(cost::ring_half_s(8e9, 4, 1e9, 0.0), 6.0);
    EXPECT_DOUBLE_EQ(cost::ring_allreduce_s(8e9, 1, 1e9, 0.001), 0.0);
    EXPECT_DOUBLE_EQ(cost::p2p_s(1e9, 1e9, 0.5), 1.5);
}

class MemoryTest : public ::testing::Test {
protected:
    Topology topo = sftest::make_topology({{"c", "A100-80GB", 1, 8}});
    JobSpec job = sftest::job_of(small_model(), 16, 128, Recompute::none);
};

TEST_F(MemoryTest, HandCountedStages) {
    const Plan plan = make_sequential_plan(topo, job, 2, 2, 2, 2);  // 4 micro-batches per replica
    ASSERT_EQ(plan.num_micro_batches, 4);
    const double layer = 4 * 64 * 64 + 2 * 64 * 256 + 2 * 64;  // 49280 with norms
    // Stage 0: 2 layers + input embedding, split over tp = 2.
    EXPECT_DOUBLE_EQ(cost::stage_params_per_gpu(plan, 0), (2 * layer + 64000) / 2);
    // Stage 1: 2 layers + output head + final norm.
    EXPECT_DOUBLE_EQ(cost::stage_params_per_gpu(plan, 1), (2 * layer + 64000 + 64) / 2);

    const cost::StageMemory m0 = cost::stage_memory(plan, 0);
    const double p0 = (2 * layer + 64000) / 2;
    EXPECT_DOUBLE_EQ(m0.weights, 2 * p0);
    EXPECT_DOUBLE_EQ(m0.gradients, 2 * p0);
    EXPECT_DOUBLE_EQ(m0.optimizer, 12 * p0);
    // Korthikanti: s*b*h*(10 + 24/t + 5*a*s/(h*t)) = 128*2*64*(10 + 12 + 20) per layer;
    // stage 0 of 2 holds 2 micro-batches of its 2 layers.
    const double per_layer = 128.0 * 2 * 64 * 42;
    EXPECT_DOUBLE_EQ(cost::layer_activation_bytes(job, 2, 2), per_layer);
    EXPECT_DOUBLE_EQ(m0.activations, 2 * 2 * per_layer);
    // Last stage: one micro-batch in flight plus fp32 logits 4*s*b*V/t.
    EXPECT_DOUBLE_EQ(cost::stage_memory(plan, 1).activations, 2 * per_layer + 4.0 * 128 * 2 * 1000 / 2);
}

TEST_F(MemoryTest, RecomputeZeroAndRefinements) {
    job.recompute = Recompute::full;
    job.zero1 = true;
    const Plan plan = make_sequential_plan(topo, job, 2, 2, 2, 2);
    const cost::StageMemory m0 = cost::stage_memory(plan, 0);
    EXPECT_DOUBLE_EQ(m0.activations, 2 * 2 * (2.0 * 128 * 2 * 64));  // 2*s*b*h per layer
    EXPECT_DOUBLE_EQ(m0.optimizer, 12 * cost::stage_params_per_gpu(plan, 0) / 2);  // sharded over dp = 2
    job.recompute = Recompute::none;
    job.sequence_parallel = true;
    EXPECT_DOUBLE_EQ(cost::layer_activation_bytes(job, 2, 2), 128.0 * 2 * 64 * (5 + 12 + 20));
    job.sequence_parallel = false;
    job.flash_attention = true;
    EXPECT_DOUBLE_EQ(cost::layer_activation_bytes(job, 2, 2), 128.0 * 2 * 64 * (10 + 12));
    job.flash_attention = false;
    job.precision = Precision::fp32;
    EXPECT_DOUBLE_EQ(cost::layer_activation_bytes(job, 2, 2), 2 * 128.0 * 2 * 64 * 42);
}

TEST_F(MemoryTest, MicroBatchesInFlightNeverExceedThoseThatExist) {
    JobSpec j = job;
    j.global_batch = 2;
    const Plan plan = make_sequential_plan(topo, j, 1, 4, 1, 2);  // one micro-batch, four stages
    ASSERT_EQ(plan.num_micro_batches, 1);
    EXPECT_DOUBLE_EQ(cost::stage_memory(plan, 0).activations, 1 * 1 * cost::layer_activation_bytes(j, 2, 1));
}
