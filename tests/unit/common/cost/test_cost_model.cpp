// Behaviour of the iteration-time model: the directions every planner relies on.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "common/cost/cost_model.h"
#include "common/cost/memory.h"
#include "common/plan/sequential_layout.h"
#include "tests/unit/common/cost/cost_fixture.h"

using namespace spiderflow;
using sftest::make_topology;

namespace {
const Catalog& cat() { return Catalog::builtin(); }
JobSpec llama7b(int batch = 64) { return sftest::job_of(*cat().model("llama2-7b"), batch, 2048, Recompute::none); }
double parts(const Prediction& p) {
    return p.compute_s + p.tp_comm_s + p.pp_comm_s + p.dp_comm_s + p.bubble_s + p.optimizer_s;
}
}  // namespace

TEST(CostModel, BreakdownAddsUpAndRatesAreConsistent) {
    const Topology t = make_topology({{"c", "A100-80GB", 4}});
    const Plan plan = make_sequential_plan(t, llama7b(), 4, 2, 4, 1);
    const Prediction p = CostModel(t, cat()).estimate(plan);
    ASSERT_TRUE(p.feasible) << p.infeasible_reason;
    EXPECT_NEAR(p.iteration_s, parts(p), 1e-9 * p.iteration_s);
    EXPECT_GT(p.compute_s, 0);
    EXPECT_GT(p.tp_comm_s, 0);
    EXPECT_GT(p.pp_comm_s, 0);
    EXPECT_GT(p.bubble_s, 0);
    EXPECT_NEAR(p.tokens_per_s, 64.0 * 2048 / p.iteration_s, 1e-6 * p.tokens_per_s);
    EXPECT_GT(p.mfu, 0.1);
    EXPECT_LT(p.mfu, cat().gpu("A100-80GB")->efficiency);  // never above the compute-only bound
    EXPECT_DOUBLE_EQ(p.scaling_efficiency, 1.0);           // one site
    EXPECT_EQ(p.stage_memory_bytes.size(), 2u);
}

TEST(CostModel, MoreTensorParallelismLowersMemoryPerGpu) {
    const Topology t = make_topology({{"c", "A100-80GB", 4}});
    const JobSpec job = sftest::job_of(*cat().model("llama2-70b"), 64, 4096, Recompute::none);
    const CostModel cm(t, cat());
    double previous = INFINITY;
    for (int tp : {1, 2, 4, 8}) {
        const Prediction p = cm.estimate(make_sequential_plan(t, job, tp, 4, 1, 1));
        EXPECT_LT(p.max_memory_bytes, previous) << "tp=" << tp;
        previous = p.max_memory_bytes;
    }
}

TEST(CostModel, CrossWanPipelineBoundaryCostsMoreThanIntraCluster) {
    // Same GPUs: two nodes of one cluster, or one node in each of two clusters 10 Gb/s, 20 ms apart.
    const Topology one = make_topology({{"a", "A100-80GB", 2}});
    const Topology two = make_topology({{"a", "A100-80GB", 1}, {"b", "A100-80GB", 1}}, {{0, 1, 10, 20}});
    const JobSpec job = llama7b();
    const Prediction local = CostModel(one, cat()).estimate(make_sequential_plan(one, job, 8, 2, 1, 1));
    const Prediction wan = CostModel(two, cat()).estimate(make_sequential_plan(two, job, 8, 2, 1, 1));
    ASSERT_TRUE(local.feasible && wan.feasible);
    EXPECT_GT(wan.pp_comm_s, 10 * local.pp_comm_s);
    EXPECT_GT(wan.bubble_s, local.bubble_s);  // 2 x 20 ms latency in fill and drain
    EXPECT_GT(wan.iteration_s, local.iteration_s);
    EXPECT_LT(wan.scaling_efficiency, 1.0);
    EXPECT_NEAR(wan.scaling_efficiency, local.iteration_s / wan.iteration_s, 1e-9);
}

TEST(CostModel, HierarchicalDpOverAThinLinkCostsMoreThanInsideOneCluster) {
    const Topology one = make_topology({{"a", "A100-80GB", 4}});
    const Topology two = make_topology({{"a", "A100-80GB", 2}, {"b", "A100-80GB", 2}}, {{0, 1, 10, 30}});
    const JobSpec job = llama7b();
    const CostModel cm_one(one, cat()), cm_two(two, cat());
    const Plan local_plan = make_sequential_plan(one, job, 8, 1, 4, 1);
    Plan wan_plan = make_sequential_plan(two, job, 8, 1, 4, 1);
    ASSERT_TRUE(wan_plan.hierarchical_dp);
    const Prediction local = cm_one.estimate(local_plan);
    const Prediction wan = cm_two.estimate(wan_plan);
    EXPECT_GT(wan.dp_comm_s, 10 * local.dp_comm_s);
    EXPECT_GT(wan.iteration_s, local.iteration_s);
    EXPECT_LT(wan.scaling_efficiency, 0.9);
    // A flat ring crosses the thin link twice (there and back) and moves 2(n-1)/n of the
    // gradients over it; the hierarchical all-reduce sends only the shards across once.
    wan_plan.hierarchical_dp = false;
    const Prediction flat = cm_two.estimate(wan_plan);
    EXPECT_GT(flat.dp_comm_s, wan.dp_comm_s);
}

TEST(CostModel, MoreDpOverlapHidesMore) {
    const Topology two = make_topology({{"a", "A100-80GB", 2}, {"b", "A100-80GB", 2}}, {{0, 1, 100, 10}});
    const Plan plan = make_sequential_plan(two, llama7b(), 8, 1, 4, 1);
    CostOptions none, half;
    none.dp_overlap = 0.0;
    half.dp_overlap = 0.5;
    const double exposed_none = CostModel(two, cat(), none).estimate(plan).dp_comm_s;
    const double exposed_half = CostModel(two, cat(), half).estimate(plan).dp_comm_s;
    EXPECT_GT(exposed_none, exposed_half);
}

TEST(CostModel, InterleavingShrinksTheBubble) {
    const Topology t = make_topology({{"c", "A100-80GB", 4}});
    const Plan plan = make_sequential_plan(t, llama7b(), 4, 4, 2, 1);
    Plan v4 = plan;
    v4.virtual_stages = 4;
    const Prediction plain = CostModel(t, cat()).estimate(plan);
    const Prediction inter = CostModel(t, cat()).estimate(v4);
    EXPECT_LT(inter.bubble_s, plain.bubble_s / 3);  // (pp-1)/v of a stage; latencies are not divided
    EXPECT_GT(inter.pp_comm_s, plain.pp_comm_s);
    // More micro-batches in flight during the interleaved warm-up (Korthikanti: 1 + (p-1)/(p v)).
    EXPECT_DOUBLE_EQ(cost::stage_memory(v4, 0).activations, (1 + 3.0 / 16.0) * cost::stage_memory(plan, 0).activations);
    EXPECT_GT(inter.max_memory_bytes, plain.max_memory_bytes);
}

TEST(CostModel, ASlowerGpuInOneReplicaSlowsTheIteration) {
    const Topology fast = make_topology({{"a", "A100-80GB", 2}, {"b", "A100-80GB", 2}}, {{0, 1, 400, 1}});
    const Topology mixed = make_topology({{"a", "A100-80GB", 2}, {"b", "V100", 2}}, {{0, 1, 400, 1}});
    const JobSpec job = llama7b();
    const Prediction pf = CostModel(fast, cat()).estimate(make_sequential_plan(fast, job, 8, 1, 4, 1));
    const Prediction pm = CostModel(mixed, cat()).estimate(make_sequential_plan(mixed, job, 8, 1, 4, 1));
    ASSERT_TRUE(pf.feasible && pm.feasible) << pm.infeasible_reason;
    // DP syncs at the slowest replica: the V100 replicas set the compute time.
    EXPECT_GT(pm.compute_s, 2 * pf.compute_s);
}

TEST(CostModel, MemoryInfeasibilityNamesStageNeedAndLimit) {
    const Topology t = make_topology({{"c", "A100-80GB", 1}});
    const JobSpec job = sftest::job_of(*cat().model("llama3-70b"), 64, 4096, Recompute::none);
    const Prediction p = CostModel(t, cat()).estimate(make_sequential_plan(t, job, 1, 1, 8, 1));
    EXPECT_FALSE(p.feasible);
    EXPECT_NE(p.infeasible_reason.find("stage 0 needs"), std::string::npos) << p.infeasible_reason;
    EXPECT_NE(p.infeasible_reason.find("GiB per GPU"), std::string::npos);
    EXPECT_NE(p.infeasible_reason.find("A100-80GB"), std::string::npos);
    EXPECT_NE(p.infeasible_reason.find("90%"), std::string::npos);
    EXPECT_GT(p.iteration_s, 0);  // the time is still reported
}

TEST(CostModel, BadPlansAreInfeasibleNotCrashes) {
    const Topology t = make_topology({{"c", "A100-80GB", 1}});
    Topology odd = t;
    odd.clusters[0].nodes[0].gpu_type = "TPUv9";
    odd.finalize("odd");
    const CostModel cm(t, cat());
    const Plan good = make_sequential_plan(t, llama7b(), 2, 2, 2, 1);
    ASSERT_TRUE(cm.estimate(good).feasible);

    Plan p = good;
    p.cell(1, 1).first_gpu = 7;  // GPUs 7..8 of an 8-GPU node
    EXPECT_NE(cm.estimate(p).infeasible_reason.find("do not exist"), std::string::npos);
    p = good;
    p.cell(1, 1) = p.cell(0, 0);
    EXPECT_NE(cm.estimate(p).infeasible_reason.find("used by two cells"), std::string::npos);
    p = good;
    p.cell(0, 1).cluster = 5;
    EXPECT_NE(cm.estimate(p).infeasible_reason.find("no such cluster"), std::string::npos);
    p = good;
    p.layers_per_stage[0] += 1;
    EXPECT_FALSE(cm.estimate(p).feasible);
    p = good;
    p.cells.pop_back();
    EXPECT_FALSE(cm.estimate(p).feasible);
    p = good;
    p.num_micro_batches = 0;
    EXPECT_FALSE(cm.estimate(p).feasible);
    EXPECT_NE(CostModel(odd, cat()).estimate(good).infeasible_reason.find("not in the catalog"), std::string::npos);
}

TEST(CostModel, UnreachableClustersAreInfeasible) {
    const Topology t = make_topology({{"a", "A100-80GB", 1}, {"b", "A100-80GB", 1}});  // no link
    const Prediction p = CostModel(t, cat()).estimate(make_sequential_plan(t, llama7b(), 8, 2, 1, 1));
    EXPECT_FALSE(p.feasible);
    EXPECT_NE(p.infeasible_reason.find("no bandwidth between"), std::string::npos);
}

TEST(CostModel, SharedWanLinkSlowsConcurrentCrossings) {
    // Two pipelines whose stage boundary crosses the same 10 Gb/s link each get half of it.
    const Topology two = make_topology({{"a", "A100-80GB", 1}, {"b", "A100-80GB", 1}}, {{0, 1, 10, 5}});
    const CostModel cm(two, cat());
    const Plan both = make_sequential_plan(two, llama7b(32), 4, 2, 2, 1);
    ASSERT_EQ(both.cell(0, 1).cluster, 0);
    ASSERT_EQ(both.cell(1, 0).cluster, 1);
    Plan single = make_sequential_plan(two, llama7b(16), 4, 2, 1, 1);
    single.cell(1, 0) = both.cell(1, 0);  // stage 1 on b: one crossing
    ASSERT_EQ(both.num_micro_batches, single.num_micro_batches);
    EXPECT_NEAR(cm.estimate(both).pp_comm_s / cm.estimate(single).pp_comm_s, 2.0, 1e-9);
}

TEST(CostModel, CrossingsToDifferentClustersShareTheLinkTheirRoutesHaveInCommon) {
    // a - b - c in a line: a's pipelines to b and to c (routed via b) both ride the a-b link.
    const Topology line = make_topology({{"a", "A100-80GB", 1}, {"b", "A100-80GB", 1}, {"c", "A100-80GB", 1}},
                                        {{0, 1, 10, 5}, {1, 2, 10, 5}});
    ASSERT_EQ(line.route_links(0, 2).size(), 2u);
    ASSERT_EQ(line.link_between(0, 1), 0);
    ASSERT_EQ(line.link_between(2, 0), -1);
    const CostModel cm(line, cat());
    // tp 4, pp 2, dp 2: stage 0 of both replicas on a, stage 1 of replica 0 on b, of replica 1 on c.
    Plan split = make_sequential_plan(line, llama7b(32), 4, 2, 2, 1);
    split.cell(0, 0) = StageCell{0, 0, 0};
    split.cell(0, 1) = StageCell{0, 0, 4};
    split.cell(1, 0) = StageCell{1, 0, 0};
    split.cell(1, 1) = StageCell{2, 0, 0};
    // The same with both stage 1 cells on b: two crossings of one link, plainly shared.
    Plan same = split;
    same.cell(1, 1) = StageCell{1, 0, 4};
    const Prediction ps = cm.estimate(split), pb = cm.estimate(same);
    ASSERT_TRUE(ps.feasible && pb.feasible);
    EXPECT_NEAR(ps.pp_comm_s, pb.pp_comm_s, 1e-9 * pb.pp_comm_s);
    // And it is half of what one crossing alone gets.
    Plan one = make_sequential_plan(line, llama7b(16), 4, 2, 1, 1);
    one.cell(0, 0) = StageCell{0, 0, 0};
    one.cell(1, 0) = StageCell{2, 0, 0};
    EXPECT_NEAR(ps.pp_comm_s / cm.estimate(one).pp_comm_s, 2.0, 1e-9);
}

TEST(CostModel, EstimateIsThreadSafe) {
    const Topology t = make_topology({{"a", "A100-80GB", 2}, {"b", "H100-SXM", 2}}, {{0, 1, 100, 10}});
    const CostModel cm(t, cat());
    const Plan plan = make_sequential_plan(t, llama7b(), 4, 2, 4, 1);
    const double expected = cm.estimate(plan).iteration_s;
    std::vector<std::thread> threads;
    std::vector<double> got(4);
    for (int i = 0; i < 4; ++i) {
        threads.emplace_back([&, i] {
            for (int k = 0; k < 200; ++k) got[static_cast<size_t>(i)] = cm.estimate(plan).iteration_s;
        });
    }
    for (auto& th : threads) th.join();
    for (double g : got) EXPECT_DOUBLE_EQ(g, expected);
}
