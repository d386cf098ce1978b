// TPA building blocks: shapes, level-1 layer split, level-2 cluster placement (CBC), spin/fill.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "common/cost/cost_model.h"
#include "common/planner/shapes.h"
#include "common/planner/spinsearch/skeleton.h"
#include "common/planner/tpa/inventory.h"
#include "common/planner/tpa/level1.h"
#include "common/planner/tpa/level2.h"
#include "fixtures.h"

using namespace sftest;

TEST(Shapes, RespectModelNodeBatchAndFixedDegrees) {
    const Topology t = two_sites();
    const CostModel cost(t, Catalog::builtin());
    PlanRequest r = request("llama3-70b", 64, 64);
    const auto shapes = enumerate_shapes(r, t, cost, 64);
    ASSERT_FALSE(shapes.empty());
    for (const Shape& s : shapes) {
        EXPECT_EQ(s.gpus(), 64);
        EXPECT_LE(s.tp, 8);                                 // NVLink domain
        EXPECT_EQ(r.job.model.heads % s.tp, 0);
        EXPECT_EQ(r.job.model.kv_heads % s.tp, 0);
        EXPECT_EQ(r.job.global_batch % (s.dp * s.micro_batch), 0);
        EXPECT_LE(s.pp, r.job.model.layers);
    }
    // 70B does not fit one A100-80GB: tp1 pp1 dp64 must be gone.
    EXPECT_EQ(std::count(shapes.begin(), shapes.end(), Shape{1, 1, 64, 1}), 0);
    r.tp = 4;
    r.pp = 4;
    for (const Shape& s : enumerate_shapes(r, t, cost, 64)) {
        EXPECT_EQ(s.tp, 4);
        EXPECT_EQ(s.pp, 4);
        EXPECT_EQ(s.dp, 4);
    }
    r.tp = 3;  // does not divide 64 heads / 8 kv heads
    EXPECT_TRUE(enumerate_shapes(r, t, cost, 64).empty());
}

TEST(Shapes, GpuCounts) {
    PlanRequest r = request("gpt3-1.3b", 64, 4096);
    EXPECT_THROW(candidate_gpu_counts(r, 1024), InfeasibleError);
    try {
        candidate_gpu_counts(r, 1024);
    } catch (const InfeasibleError& e) {
        EXPECT_NE(std::string(e.what()).find("asked for 4096 GPUs; the allowed clusters have 1024"), std::string::npos)
            << e.what();
    }
    r.job.gpu_mode = GpuCountMode::at_most;
    r.job.gpus = 100;
    const auto counts = candidate_gpu_counts(r, 64);
    ASSERT_FALSE(counts.empty());
    EXPECT_EQ(counts.front(), 64);
    EXPECT_TRUE(std::is_sorted(counts.rbegin(), counts.rend()));
    r.job.gpu_mode = GpuCountMode::best;
    EXPECT_EQ(choose_gpu_count(r, 48), 48);
}

TEST(Level1, LayersFollowSpeedAndCaps) {
    // Speeds 3:1 -> 30:10 of 40 layers.
    auto l = tpa::split_layers(40, {3.0, 1.0}, {40, 40});
    ASSERT_EQ(l.size(), 2u);
    EXPECT_EQ(l[0], 30);
    EXPECT_EQ(l[1], 10);
    // A memory cap of 20 on the fast stage pushes the rest to the slow one.
    l = tpa::split_layers(40, {3.0, 1.0}, {20, 40});
    EXPECT_EQ(l[0], 20);
    EXPECT_EQ(l[1], 20);
    EXPECT_TRUE(tpa::split_layers(40, {1.0, 1.0}, {10, 10}).empty());  // cannot hold 40
    EXPECT_TRUE(tpa::split_layers(1, {1.0, 1.0}, {10, 10}).empty());   // fewer layers than stages
    l = tpa::split_layers(7, {1, 1, 1}, {7, 7, 7});
    EXPECT_EQ(std::accumulate(l.begin(), l.end(), 0), 7);
    EXPECT_LE(*std::max_element(l.begin(), l.end()) - *std::min_element(l.begin(), l.end()), 1);
}

TEST(Level2, IlpPutsHeavyStagesOnFastGpusAndSplitsOwnedLayers) {
    Topology t;
    t.name = "mixed";
    t.clusters.push_back(make_cluster("mixed", {{"A100-80GB", 2}, {"H100-SXM", 2}}));
    t.finalize();
    const CostModel cost(t, Catalog::builtin());
    const tpa::ClusterInventory inv = tpa::build_inventory(t, cost, 0, 8);
    ASSERT_EQ(inv.groups.size(), 2u);
    EXPECT_EQ(inv.groups[0].gpu_type, "H100-SXM");  // fastest first
    EXPECT_EQ(inv.slots(), 4);

    PlanRequest r = request("llama3-70b", 16, 32);
    const Shape shape{8, 4, 1, 1};
    const tpa::MemoryModel mem = tpa::memory_model(r.job, shape);
    tpa::ClusterDemand d;
    d.cluster = 0;
    d.stage_cells = {1, 1, 1, 1};
    tpa::Level2Options o;
    const tpa::Placement p = tpa::place_in_cluster(inv, d, {20, 20, 20, 20}, mem, 1, o);
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_TRUE(p.used_ilp);
    EXPECT_EQ(p.status, milp::SolveStatus::optimal);
    // Every stage is owned here (dp = 1), so the ILP moves layers to the H100 stages.
    int fast_layers = 0, slow_layers = 0;
    for (int s = 0; s < 4; ++s) {
        ASSERT_EQ(p.stage_slots[static_cast<size_t>(s)].size(), 1u);
        ASSERT_GT(p.owned_layers[static_cast<size_t>(s)], 0);
        const bool fast = p.stage_flops[static_cast<size_t>(s)] == inv.groups[0].flops;
        (fast ? fast_layers : slow_layers) += p.owned_layers[static_cast<size_t>(s)];
    }
    EXPECT_EQ(fast_layers + slow_layers, 80);
    EXPECT_GT(fast_layers, slow_layers);
    // No two cells share a slot.
    std::set<std::pair<int, int>> used;
    for (const auto& v : p.stage_slots)
        for (const tpa::Slot& s : v) EXPECT_TRUE(used.insert({s.node, s.first_gpu}).second);
}

TEST(Level2, ParallelClustersAreDeterministic) {
    Topology t;
    t.name = "mixed4";
    for (int i = 0; i < 4; ++i)
        t.clusters.push_back(make_cluster("c" + std::to_string(i), {{"A100-80GB", 2}, {"H100-SXM", 1 + i % 2}}));
    t.finalize();
    const CostModel cost(t, Catalog::builtin());
    std::vector<tpa::ClusterInventory> invs;
    for (int i = 0; i < 4; ++i) invs.push_back(tpa::build_inventory(t, cost, i, 8));
    std::vector<const tpa::ClusterInventory*> ptrs;
    std::vector<tpa::ClusterDemand> demands;
    for (int i = 0; i < 4; ++i) {
        ptrs.push_back(&invs[static_cast<size_t>(i)]);
        demands.push_back(tpa::ClusterDemand{i, {i == 0 ? 2 : 0, i == 1 ? 2 : 0, i == 2 ? 2 : 0, i == 3 ? 2 : 0}});
    }
    PlanRequest r = request("llama3-70b", 16, 64);
    const tpa::MemoryModel mem = tpa::memory_model(r.job, Shape{8, 4, 2, 1});
    tpa::Level2Options o;
    o.threads = 4;
    const auto a = tpa::place_all(ptrs, demands, {20, 20, 20, 20}, mem, 2, o);
    const auto b = tpa::place_all(ptrs, demands, {20, 20, 20, 20}, mem, 2, o);
    ASSERT_EQ(a.size(), 4u);
    for (size_t i = 0; i < 4; ++i) {
        ASSERT_TRUE(a[i].ok) << a[i].why;
        for (size_t s = 0; s < 4; ++s) {
            ASSERT_EQ(a[i].stage_slots[s].size(), b[i].stage_slots[s].size());
            for (size_t k = 0; k < a[i].stage_slots[s].size(); ++k) {
                EXPECT_EQ(a[i].stage_slots[s][k].node, b[i].stage_slots[s][k].node);
                EXPECT_EQ(a[i].stage_slots[s][k].first_gpu, b[i].stage_slots[s][k].first_gpu);
            }
        }
    }
}

TEST(Spin, FillOrientations) {
    const std::vector<spin::ClusterShare> order{{0, 4, 1}, {1, 4, 1}};
    // pp 2, dp 4, one group: stage 0 of every replica in cluster 0, stage 1 in cluster 1.
    auto cells = spin::fill(order, 2, 4, 1);
    ASSERT_EQ(cells.size(), 8u);
    for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(cells[static_cast<size_t>(r)], 0);
        EXPECT_EQ(cells[static_cast<size_t>(4 + r)], 1);
    }
    // dp groups: replicas 0, 1 whole in cluster 0, replicas 2, 3 whole in cluster 1.
    cells = spin::fill(order, 2, 4, 4);
    for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(cells[static_cast<size_t>(r)], cells[static_cast<size_t>(4 + r)]);
        EXPECT_EQ(cells[static_cast<size_t>(r)], r < 2 ? 0 : 1);
    }
    EXPECT_TRUE(spin::fill(order, 3, 4, 1).empty());  // 12 cells, 8 slots
    const auto g = spin::group_choices(8, 2);
    EXPECT_NE(std::find(g.begin(), g.end(), 1), g.end());
    EXPECT_NE(std::find(g.begin(), g.end(), 8), g.end());
}
