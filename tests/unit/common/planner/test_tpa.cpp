// TPA building blocks: shapes, level-1 layer split, level-2 cluster placement (CBC), spin/fill.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "common/cost/cost_model.h"
#include "common/plan/layer_split.h"
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

namespace {

double slowest_stage(const std::vector<int>& layers, const std::vector<double>& speed) {
    double t = 0;
    for (size_t s = 0; s < layers.size(); ++s) t = std::max(t, layers[s] / speed[s]);
    return t;
}

// Every expressible split within the caps, by brute force: (first, middle, last).
double best_expressible(int total, const std::vector<double>& speed, const std::vector<int>& cap) {
    const int n = static_cast<int>(speed.size());
    double best = std::numeric_limits<double>::infinity();
    for (int m = 1; m * (n - 2) <= total; ++m)
        for (int f = 1; f <= total; ++f) {
            const int l = total - f - m * (n - 2);
            if (l < 1) break;
            std::vector<int> v(static_cast<size_t>(n), m);
            v.front() = f;
            v.back() = l;
            bool fits = true;
            for (int s = 0; s < n; ++s) fits = fits && v[static_cast<size_t>(s)] <= cap[static_cast<size_t>(s)];
            if (fits) best = std::min(best, slowest_stage(v, speed));
        }
    return best;
}

}  // namespace

TEST(Level1, MegatronSplitIsExpressibleAndOptimalAmongThem) {
    // Deterministic pseudo-random speeds and caps; brute force says what the best is.
    unsigned seed = 12345;
    auto next = [&] { return (seed = seed * 1103515245u + 12345u) >> 8; };
    for (int round = 0; round < 300; ++round) {
        const int n = 3 + static_cast<int>(next() % 8);
        const int total = n + static_cast<int>(next() % 60);
        std::vector<double> speed;
        std::vector<int> cap;
        for (int s = 0; s < n; ++s) {
            speed.push_back(1.0 + static_cast<double>(next() % 400) / 100.0);
            cap.push_back(round % 3 == 0 ? total : 1 + static_cast<int>(next() % (total / 2 + 2)));
        }
        const std::vector<int> l = tpa::megatron_split(total, speed, cap);
        const double best = best_expressible(total, speed, cap);
        if (!std::isfinite(best)) {
            EXPECT_TRUE(l.empty()) << "round " << round;
            continue;
        }
        ASSERT_EQ(l.size(), static_cast<size_t>(n)) << "round " << round;
        EXPECT_EQ(megatron_split_problem(l), "") << "round " << round;
        EXPECT_EQ(std::accumulate(l.begin(), l.end(), 0), total);
        for (int s = 0; s < n; ++s) EXPECT_LE(l[static_cast<size_t>(s)], cap[static_cast<size_t>(s)]);
        EXPECT_NEAR(slowest_stage(l, speed), best, 1e-12) << "round " << round;
    }
}

// megatron_split fills the two ends without split_layers' heap (speed): it must give exactly the
// split the heap gives, ties included (equal speeds and extras make many).
TEST(Level1, MegatronSplitsEndsAreSplitLayersOwn) {
    const auto by_heap = [](int total, const std::vector<double>& speed, const std::vector<int>& cap,
                            const std::vector<double>& extra) {
        const size_t n = speed.size();
        double mid_speed = std::numeric_limits<double>::infinity();
        int mid_cap = total;
        for (size_t s = 1; s + 1 < n; ++s) {
            mid_speed = std::min(mid_speed, speed[s]);
            mid_cap = std::min(mid_cap, cap[s]);
        }
        const int middles = static_cast<int>(n) - 2;
        std::vector<int> best;
        double best_time = std::numeric_limits<double>::infinity();
        for (int m = std::min(mid_cap, (total - 2) / middles); m >= 1; --m) {
            const std::vector<int> ends = tpa::split_layers(total - middles * m, {speed.front(), speed.back()},
                                                            {cap.front(), cap.back()}, {extra.front(), extra.back()});
            if (ends.empty()) continue;
            const double time = std::max({m / mid_speed, (ends[0] + extra.front()) / speed.front(),
                                          (ends[1] + extra.back()) / speed.back()});
            if (time >= best_time) continue;
            best_time = time;
            best.assign(n, m);
            best.front() = ends[0];
            best.back() = ends[1];
        }
        return best;
    };
    unsigned seed = 777;
    auto next = [&] { return (seed = seed * 1103515245u + 12345u) >> 8; };
    int nonempty = 0;
    for (int round = 0; round < 2000; ++round) {
        const int n = 3 + static_cast<int>(next() % 14);
        const int total = n + static_cast<int>(next() % 90);
        std::vector<double> speed, extra(static_cast<size_t>(n), 0.0);
        std::vector<int> cap;
        for (int s = 0; s < n; ++s) {
            speed.push_back(1.0 + static_cast<double>(next() % 4));   // few values: ties
            cap.push_back(round % 4 == 0 ? total : 1 + static_cast<int>(next() % (total / 2 + 2)));
        }
        if (round % 2) extra.back() = static_cast<double>(next() % 5) * 0.6;
        const std::vector<int> l = tpa::megatron_split(total, speed, cap, extra);
        EXPECT_EQ(l, by_heap(total, speed, cap, extra)) << "round " << round;
        nonempty += !l.empty();
    }
    EXPECT_GT(nonempty, 1000);
}

TEST(Level1, MegatronSplitOfTheIssueCases) {
    // Equal speeds: 32 layers on 7 or 6 stages, 80 on 32 (the unconstrained split would be 5,5,5,5,4,4,4).
    EXPECT_EQ(tpa::megatron_split(32, std::vector<double>(7, 1.0), std::vector<int>(7, 32)),
              (std::vector<int>{4, 5, 5, 5, 5, 5, 3}));
    EXPECT_EQ(tpa::megatron_split(32, std::vector<double>(6, 1.0), std::vector<int>(6, 32)),
              (std::vector<int>{4, 6, 6, 6, 6, 4}));
    const std::vector<int> l80 = tpa::megatron_split(80, std::vector<double>(32, 1.0), std::vector<int>(32, 80));
    EXPECT_EQ(megatron_split_problem(l80), "");
    EXPECT_EQ(l80.front() + l80.back() + 30 * l80[1], 80);
    // Fast ends, slow middles: the ends take more; two stages split freely.
    EXPECT_EQ(tpa::megatron_split(16, {3.0, 1.0, 1.0, 3.0}, {16, 16, 16, 16}), (std::vector<int>{6, 2, 2, 6}));
    EXPECT_EQ(tpa::megatron_split(40, {3.0, 1.0}, {40, 40}), (std::vector<int>{30, 10}));
    // One middle stage capped at 1 caps them all; the ends cannot absorb 30 layers each here.
    EXPECT_TRUE(tpa::megatron_split(64, std::vector<double>(4, 1.0), {30, 1, 30, 30}).empty());
    EXPECT_NE(tpa::split_failure(64, std::vector<double>(4, 1.0), {30, 1, 30, 30}).find("unequal middle stages"),
              std::string::npos);
    EXPECT_EQ(tpa::split_failure(64, std::vector<double>(4, 1.0), {10, 10, 10, 10}),
              "layers do not fit the stages' memory");
}

TEST(Level1, SplitMovesStayExpressible) {
    for (const std::vector<int>& start : {std::vector<int>{4, 5, 5, 5, 5, 5, 3}, std::vector<int>{13, 11},
                                          std::vector<int>{1, 1, 1, 5}, std::vector<int>{10, 2, 2, 2, 10}}) {
        const int total = std::accumulate(start.begin(), start.end(), 0);
        const auto moves = tpa::split_moves(start);
        EXPECT_FALSE(moves.empty());
        for (const std::vector<int>& m : moves) {
            EXPECT_EQ(megatron_split_problem(m), "") << ::testing::PrintToString(m);
            EXPECT_EQ(std::accumulate(m.begin(), m.end(), 0), total);
            EXPECT_NE(m, start);
        }
    }
    // The middle count can move both ways from 4,5,5,5,5,5,3.
    const auto moves = tpa::split_moves({4, 5, 5, 5, 5, 5, 3});
    EXPECT_TRUE(std::any_of(moves.begin(), moves.end(), [](const std::vector<int>& m) { return m[1] == 4; }));
    EXPECT_TRUE(std::any_of(moves.begin(), moves.end(), [](const std::vector<int>& m) { return m[1] == 6; }));
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
    // Megatron-LM runs only equal middle stages; the ILP plans for that split.
    EXPECT_EQ(p.owned_layers[1], p.owned_layers[2]);
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
