// A plan's WAN traffic: which flows cross clusters, their sizes, and the iteration timeline.
#include <gtest/gtest.h>

#include "common/coflow/llm_traffic.h"
#include "common/coflow/network.h"
#include "common/coflow/schedulers.h"
#include "common/plan/plan_routes.h"
#include "common/topology/topology.h"
#include "common/util/errors.h"
#include "tests/unit/common/coflow/coflow_fixture.h"

using namespace spiderflow::coflow;
using spiderflow::Plan;

namespace {

// pp x dp plan over clusters given per cell (stage-major), tiny dims so bytes are easy.
Plan make_plan(int pp, int dp, std::vector<int> clusters, int micro_batches) {
    Plan p;
    p.pp = pp;
    p.dp = dp;
    p.tp = 1;
    p.micro_batch = 1;
    p.num_micro_batches = micro_batches;
    p.job.seq_len = 50;
    p.job.model.name = "tiny";
    p.job.model.layers = 2 * pp;
    p.job.model.hidden = 1;       // activation = 1 * 50 * 1 * 2 bytes = 100 B
    p.job.model.heads = 1;
    p.job.model.kv_heads = 1;
    p.job.model.ffn_hidden = 4;
    p.job.model.vocab = 10;
    p.layers_per_stage.assign(pp, 2);
    for (int c : clusters) p.cells.push_back({c, 0, 0});
    return p;
}

}  // namespace

TEST(LlmTraffic, PipelineAcrossClustersMovesActivationsBothWays) {
    // Stage 0 of both replicas in cluster 0, stage 1 in cluster 1: PP crosses, DP stays local.
    const Plan p = make_plan(2, 2, {0, 0, 1, 1}, 4);
    EXPECT_DOUBLE_EQ(activation_bytes(p), 100);
    StageTimes t{{1, 1}, {2, 2}};
    IterationTraffic traffic;
    const PeriodicJob j = build_llm_job(p, t, {"pp-across", 0, 1}, &traffic);
    EXPECT_DOUBLE_EQ(traffic.pp_bytes, 4 * 2 * 100 * 2);   // micro-batches x replicas x bytes x directions
    EXPECT_DOUBLE_EQ(traffic.dp_bytes, 0);
    EXPECT_DOUBLE_EQ(traffic.ep_bytes, 0);
    EXPECT_DOUBLE_EQ(j.wan_bytes_per_iteration, traffic.pp_bytes);
}

TEST(LlmTraffic, DataParallelAcrossClustersIsAHierarchicalRing) {
    // Replica 0 in cluster 0, replica 1 in cluster 1, both stages: DP crosses, PP stays local.
    const Plan p = make_plan(2, 2, {0, 1, 0, 1}, 4);
    StageTimes t{{1, 1}, {2, 2}};
    IterationTraffic traffic;
    build_llm_job(p, t, {"dp-across", 0, 1}, &traffic);
    EXPECT_DOUBLE_EQ(traffic.pp_bytes, 0);
    // Two clusters: each sends 2(k-1)/k = 1x the stage's gradients to the other.
    EXPECT_DOUBLE_EQ(traffic.dp_bytes, 2 * (stage_gradient_bytes(p, 0) + stage_gradient_bytes(p, 1)));
    // Stage 0 holds the embedding, stage 1 the output head and the final norm.
    EXPECT_DOUBLE_EQ(stage_gradient_bytes(p, 1) - stage_gradient_bytes(p, 0),
                     p.job.model.hidden * p.job.bytes_per_param());
}

TEST(LlmTraffic, MoeExpertsAreAllReducedLikeDenseWeights) {
    // The plan has no expert-parallel degree: every cell holds all experts of its layers (as the
    // memory and cost models assume), so no all-to-all crosses clusters and the experts'
    // gradients join the DP all-reduce.
    Plan p = make_plan(1, 2, {0, 1}, 2);
    const double dense = stage_gradient_bytes(p, 0);
    p.job.model.experts = 8;
    p.job.model.experts_per_token = 2;
    EXPECT_GT(stage_gradient_bytes(p, 0), dense);
    StageTimes t{{1}, {2}};
    IterationTraffic traffic;
    const PeriodicJob j = build_llm_job(p, t, {"moe", 0, 1}, &traffic);
    EXPECT_DOUBLE_EQ(traffic.ep_bytes, 0);
    EXPECT_DOUBLE_EQ(traffic.dp_bytes, 2 * stage_gradient_bytes(p, 0));
    for (const auto& task : j.tasks) EXPECT_NE(task.kind, CoflowKind::ep) << task.label;
}

TEST(LlmTraffic, SummaryAndCoflowsCountTheSameBytes) {
    // One traffic definition: the plan-level summary (plan text, SVG, planners) and the coflow
    // DAG add up to the same bytes per iteration, on a mixed layout with a three-cluster ring.
    const Plan p = make_plan(2, 3, {0, 1, 2, 0, 1, 1}, 4);
    IterationTraffic traffic;
    build_llm_job(p, {{1, 1}, {2, 2}}, {"mixed", 0, 1}, &traffic);
    double pp = 0, dp_edges = 0;
    for (const auto& t : spiderflow::cross_cluster_traffic(p)) {
        pp += t.pp_bytes;
        dp_edges += t.dp_bytes;
    }
    EXPECT_DOUBLE_EQ(traffic.pp_bytes, pp);
    // Ring over {0,1,2} for stage 0 (three edges, one direction each), {0,1} for stage 1 (the
    // summary counts a two-cluster ring once, the coflow has a flow each way).
    const double g0 = stage_gradient_bytes(p, 0), g1 = stage_gradient_bytes(p, 1);
    EXPECT_DOUBLE_EQ(dp_edges, 3 * (4.0 / 3) * g0 + g1);
    EXPECT_DOUBLE_EQ(traffic.dp_bytes, 3 * (4.0 / 3) * g0 + 2 * g1);
}

TEST(LlmTraffic, MicroBatchesStreamThroughABoundaryInOrder) {
    // Stage 0 computes 4 micro-batches in 0.1 s each; each needs 1 s on the link. NCCL sends to
    // one peer in order, so activations go one after another (arriving at 1.1, 2.1, 3.1, 4.1
    // s), and stage 1 can start on micro-batch 0 at 1.1 s; were the four shared, none would
    // arrive before 4 s.
    const Plan p = make_plan(2, 1, {0, 1}, 4);
    const PeriodicJob j = build_llm_job(p, {{0.1, 0.1}, {0.2, 0.2}}, {"fifo", 0, 1});
    Workload w;
    w.jobs.push_back(j);
    auto s = make_scheduler("fair");
    const SimResult r = simulate(line_network(2, 100), w, *s);
    std::vector<double> act;
    for (const auto& c : r.coflows)
        if (j.tasks[c.task].label.rfind("PPact", 0) == 0) act.push_back(c.finish_s);
    ASSERT_EQ(act.size(), 4u);
    for (int m = 0; m < 4; ++m) EXPECT_NEAR(act[m], 1.1 + m, 1e-9) << "micro-batch " << m;
}

TEST(LlmTraffic, GpipeTimelineByHand) {
    // pp = 2 over two clusters, one replica, 2 micro-batches; F = 1 s, B = 2 s, 100 B per
    // boundary on a 100 B/s link (1 s). F(0,0) 0-1, act 1-2, F(1,0) 1-2, act 2-3, F(0,1) 2-3,
    // F(1,1) 3-4, B(0,1) 4-6, grad 6-7, B(1,1) 6-8, grad 8-9, B(0,0) 7-9, B(1,0) 9-11.
    const Plan p = make_plan(2, 1, {0, 1}, 2);
    const PeriodicJob j = build_llm_job(p, {{1, 1}, {2, 2}}, {"gpipe", 0, 2});
    EXPECT_DOUBLE_EQ(j.compute_s_per_iteration, 1 + 1 + 1 + 2 + 2 + 2);   // the compute-only critical path
    Workload w;
    w.jobs.push_back(j);
    const Network net = line_network(2, 100);
    auto s = make_scheduler("hermod");
    const SimResult r = simulate(net, w, *s);
    ASSERT_EQ(r.jobs[0].iteration_end_s.size(), 2u);
    EXPECT_NEAR(r.jobs[0].iteration_end_s[0], 11.0, 1e-9);
    EXPECT_NEAR(r.jobs[0].jct_s(), 22.0, 1e-9);
}

TEST(LlmTraffic, InconsistentPlanIsAnInputError) {
    Plan p = make_plan(2, 2, {0, 1, 0}, 2);   // 3 cells for pp*dp = 4
    EXPECT_THROW(build_llm_job(p, {{1, 1}, {2, 2}}, {}), spiderflow::InputError);
}

TEST(LlmTraffic, EachStageIsAsSlowAsItsSlowestCell) {
    // Cluster 0 of A100s, cluster 1 of H100s; stage 0 has a cell on each, stage 1 only H100s.
    spiderflow::Topology t;
    for (const char* type : {"A100-80GB", "H100-SXM"}) {
        spiderflow::Cluster c;
        c.name = type;
        spiderflow::Node n;
        n.name = std::string(type) + "-n0";
        n.gpu_type = type;
        n.gpus = 8;
        c.nodes.push_back(n);
        t.clusters.push_back(c);
    }
    const auto& catalog = spiderflow::Catalog::builtin();
    const Plan p = make_plan(2, 2, {0, 1, 1, 1}, 2);
    const StageTimes got = stage_times_on(p, t, catalog);
    const auto* a100 = catalog.gpu("A100-80GB");
    const auto* h100 = catalog.gpu("H100-SXM");
    const StageTimes slow = stage_times_from_flops(p, a100->peak_flops * a100->efficiency);
    const StageTimes fast = stage_times_from_flops(p, h100->peak_flops * h100->efficiency);
    ASSERT_LT(fast.forward_s[0], slow.forward_s[0]);
    EXPECT_DOUBLE_EQ(got.forward_s[0], slow.forward_s[0]);
    EXPECT_DOUBLE_EQ(got.backward_s[0], slow.backward_s[0]);
    EXPECT_DOUBLE_EQ(got.forward_s[1], fast.forward_s[1]);
    EXPECT_DOUBLE_EQ(got.backward_s[1], fast.backward_s[1]);

    t.clusters[1].nodes[0].gpu_type = "abacus";
    try {
        stage_times_on(p, t, catalog);
        FAIL() << "an unknown GPU type was priced";
    } catch (const spiderflow::InputError& e) {
        EXPECT_EQ(e.problem(), "unknown GPU type 'abacus'");
    }
}

// Each kind of traffic on the route the cost model prices for it (plan_routes.h). East and west
// have a thin, near direct link and a wide one through a far hub: tiny pipeline messages take the
// direct (fast) route, and the network from the topology holds both.
TEST(LlmTraffic, EachKindTakesTheRouteTheCostModelPrices) {
    // east-west: 1 Gb/s, 1 ms; via the hub: 100 Gb/s, 40 ms a hop.
    const spiderflow::Topology t = clusters_and_links(
        "detour", {"east", "west", "hub"}, {{0, 1, 1e9 / 8, 0.001}, {0, 2, 100e9 / 8, 0.040}, {2, 1, 100e9 / 8, 0.040}});
    const Network net = Network::from_topology(t);
    ASSERT_EQ(net.route(0, 1).size(), 2u);          // widest: through the hub
    ASSERT_EQ(net.route(0, 1, true).size(), 1u);    // fast: the direct link
    EXPECT_NEAR(net.route_latency_s(0, 1, true), 0.001, 1e-12);

    const Plan p = make_plan(2, 2, {0, 0, 1, 1}, 4);
    LlmJobOptions o;
    o.topology = &t;
    const PeriodicJob job = build_llm_job(p, stage_times_from_flops(p, 1e12), o);
    int pipeline_flows = 0;
    for (const Task& task : job.tasks) {
        if (task.type != Task::Type::coflow || task.kind != CoflowKind::pp) continue;
        for (const FlowSpec& f : task.flows) {
            ++pipeline_flows;
            EXPECT_EQ(f.fast_route, spiderflow::pp_route(t, p, f.src, f.dst) == spiderflow::RouteKind::fastest);
            EXPECT_TRUE(f.fast_route);   // 100-byte messages: latency is all that counts
        }
    }
    EXPECT_GT(pipeline_flows, 0);
    // Without the topology every flow keeps the network's default route.
    for (const Task& task : build_llm_job(p, stage_times_from_flops(p, 1e12), LlmJobOptions{}).tasks)
        for (const FlowSpec& f : task.flows) EXPECT_FALSE(f.fast_route);
}
