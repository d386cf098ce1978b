// DiLoCo in the cost model: inner steps that never touch the WAN, an outer step every H of them
// priced as a ring over the sites, and what streaming hides.
#include <gtest/gtest.h>

#include "common/cost/cost_model.h"
#include "common/plan/plan_traffic.h"
#include "common/plan/sequential_layout.h"
#include "tests/unit/common/cost/cost_fixture.h"

using namespace spiderflow;
using sftest::make_topology;

namespace {

// Two sites of 2 nodes x 8 A100 joined by one WAN link.
Topology two_sites(double wan_gbps, double latency_ms = 30) {
    return make_topology({{"east", "A100-80GB", 2}, {"west", "A100-80GB", 2}}, {{0, 1, wan_gbps, latency_ms}});
}

JobSpec llama8b(int global_batch, SyncMode mode, int inner_steps = 100) {
    JobSpec job = sftest::job_of(*Catalog::builtin().model("llama3-8b"), global_batch, 2048, Recompute::none);
    job.sync.mode = mode;
    job.sync.inner_steps = inner_steps;
    return job;
}

// tp 8, one replica per node: replicas 0 and 1 in east, 2 and 3 in west (pipelines stay home).
Plan four_replicas(const Topology& t, const JobSpec& job) { return make_sequential_plan(t, job, 8, 1, 4, 1); }

Prediction estimate(const Topology& t, const Plan& plan) { return CostModel(t, Catalog::builtin()).estimate(plan); }

}  // namespace

TEST(Diloco, SyncPlansReportNoOuterStep) {
    const Topology t = two_sites(10);
    const Prediction p = estimate(t, four_replicas(t, llama8b(64, SyncMode::sync)));
    ASSERT_TRUE(p.feasible) << p.infeasible_reason;
    EXPECT_EQ(p.outer_allreduce_s, 0);
    EXPECT_EQ(p.outer_wan_bytes, 0);
    EXPECT_EQ(p.compute_utilisation, 0);
}

// An inner step is one site's own synchronous step: with the outer step spread over a million
// inner steps, both sites together run at the speed of one site training half the batch.
TEST(Diloco, InnerStepIsOneSitesSynchronousStep) {
    const Topology t = two_sites(1);
    const Prediction both = estimate(t, four_replicas(t, llama8b(64, SyncMode::diloco, 1000000)));
    ASSERT_TRUE(both.feasible) << both.infeasible_reason;
    const Prediction east = estimate(t, make_sequential_plan(t, llama8b(32, SyncMode::sync), 8, 1, 2, 1));
    ASSERT_TRUE(east.feasible);
    EXPECT_NEAR(both.iteration_s / east.iteration_s, 1.0, 1e-3);
    EXPECT_EQ(both.dp_comm_s, east.dp_comm_s);
    // ... while synchronous training over the same 1 Gbps link is far slower.
    const Prediction sync = estimate(t, four_replicas(t, llama8b(64, SyncMode::sync)));
    EXPECT_GT(sync.iteration_s, 5 * both.iteration_s);
}

// One outer step: each site sends its pseudo-gradients around a two-site ring, i.e. every
// parameter once each way at the outer precision, and the ring takes at least that over the link.
TEST(Diloco, OuterStepMovesTheParametersAtTheOuterPrecision) {
    const Topology t = two_sites(10, 30);
    JobSpec job = llama8b(64, SyncMode::diloco);
    const double params = job.model.total_params();
    for (auto [precision, bytes] : {std::pair{OuterPrecision::fp32, 4}, {OuterPrecision::bf16, 2}, {OuterPrecision::int8, 1}}) {
        job.sync.outer_precision = precision;
        const Prediction p = estimate(t, four_replicas(t, job));
        ASSERT_TRUE(p.feasible) << p.infeasible_reason;
        EXPECT_NEAR(p.outer_wan_bytes / (2 * params * bytes), 1.0, 1e-9) << to_string(precision);
        // Ring of two over 10 Gbit/s: 2 (C-1)/C x payload / bandwidth + 2 (C-1) x latency.
        const double wire_s = params * bytes / (10e9 / 8) + 2 * 0.030;
        EXPECT_GE(p.outer_allreduce_s, wire_s * (1 - 1e-9)) << to_string(precision);
        EXPECT_LT(p.outer_allreduce_s, wire_s * 1.2) << to_string(precision);
    }
}

TEST(Diloco, TimePerStepSpreadsTheExposedOuterStepOverH) {
    const Topology t = two_sites(1);
    const Prediction p = estimate(t, four_replicas(t, llama8b(64, SyncMode::diloco, 100)));
    ASSERT_TRUE(p.feasible);
    EXPECT_EQ(p.outer_exposed_s, p.outer_allreduce_s);  // blocking
    const double inner = p.iteration_s - p.outer_exposed_s / 100;
    EXPECT_NEAR(p.compute_utilisation, 100 * inner / (100 * inner + p.outer_exposed_s), 1e-12);
    EXPECT_LT(p.compute_utilisation, 1.0);
    EXPECT_NEAR(p.tokens_per_s, 64.0 * 2048 / p.iteration_s, 1e-6 * p.tokens_per_s);
    // Against the same DiLoCo plan in one site, whose outer step runs over the NICs.
    EXPECT_GT(p.scaling_efficiency, 0.1);
    EXPECT_LT(p.scaling_efficiency, 1.0);
}

TEST(Diloco, StreamingHidesTheOuterStepBehindTheNextInnerSteps) {
    const Topology t = two_sites(1);
    JobSpec job = llama8b(64, SyncMode::diloco, 20);
    const Prediction blocking = estimate(t, four_replicas(t, job));
    job.sync.streaming = true;
    const Prediction streaming = estimate(t, four_replicas(t, job));
    ASSERT_TRUE(blocking.feasible && streaming.feasible);
    EXPECT_EQ(streaming.outer_allreduce_s, blocking.outer_allreduce_s);
    const double inner = blocking.iteration_s - blocking.outer_exposed_s / 20;
    EXPECT_NEAR(streaming.outer_exposed_s, std::max(0.0, blocking.outer_allreduce_s - 20 * inner), 1e-9);
    EXPECT_GT(streaming.compute_utilisation, blocking.compute_utilisation);
    // Enough inner steps hide it all.
    job.sync.inner_steps = 100000;
    const Prediction hidden = estimate(t, four_replicas(t, job));
    EXPECT_EQ(hidden.outer_exposed_s, 0);
    EXPECT_EQ(hidden.compute_utilisation, 1.0);
}

// A replica split over two sites would send activations over the WAN every inner step: not
// DiLoCo, and said so rather than priced.
TEST(Diloco, AReplicaSpanningSitesIsInfeasible) {
    const Topology t = two_sites(10);
    // pp 2, dp 2, stage-major: stage 0 of both replicas in east, stage 1 in west.
    const Plan plan = make_sequential_plan(t, llama8b(64, SyncMode::diloco), 8, 2, 2, 1);
    ASSERT_NE(plan.cell(0, 0).cluster, plan.cell(1, 0).cluster);
    const Prediction p = estimate(t, plan);
    EXPECT_FALSE(p.feasible);
    EXPECT_NE(p.infeasible_reason.find("DiLoCo trains whole replicas inside one site"), std::string::npos)
        << p.infeasible_reason;
    EXPECT_NE(p.infeasible_reason.find("east"), std::string::npos);
}

// In one site there is nothing to average across: DiLoCo costs what sync costs.
TEST(Diloco, OneSiteHasNoOuterAllReduce) {
    const Topology t = two_sites(10);
    const Prediction d = estimate(t, make_sequential_plan(t, llama8b(32, SyncMode::diloco), 8, 1, 2, 1));
    const Prediction s = estimate(t, make_sequential_plan(t, llama8b(32, SyncMode::sync), 8, 1, 2, 1));
    ASSERT_TRUE(d.feasible && s.feasible);
    EXPECT_EQ(d.outer_allreduce_s, 0);
    EXPECT_EQ(d.outer_wan_bytes, 0);
    EXPECT_DOUBLE_EQ(d.iteration_s, s.iteration_s);
    EXPECT_EQ(d.compute_utilisation, 1.0);
}

// The plan's traffic, as the coflow model and the plan text read it: no DP flow crosses the WAN
// in an inner step; the outer step's flows are the synchronous all-reduce's at another precision.
TEST(Diloco, TrafficHasNoPerStepWanAllReduce) {
    const Topology t = two_sites(10);
    JobSpec job = llama8b(64, SyncMode::sync);
    job.precision = Precision::bf16;
    const Plan sync = four_replicas(t, job);
    ASSERT_FALSE(dp_allreduce_flows(sync, 0).empty());
    job.sync.mode = SyncMode::diloco;
    job.sync.outer_precision = OuterPrecision::bf16;
    const Plan diloco = four_replicas(t, job);
    EXPECT_TRUE(dp_allreduce_flows(diloco, 0).empty());
    EXPECT_EQ(iteration_wan_bytes(diloco), 0);
    EXPECT_DOUBLE_EQ(outer_step_wan_bytes(diloco), iteration_wan_bytes(sync));
}
