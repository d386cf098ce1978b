// Switch uplinks inside a cluster: a tapered fabric slows the crossings that climb it, a
// non-blocking one (no uplink figure) never does, and a placement that keeps each stage under
// one leaf switch is predicted faster than one that scatters it.
#include <gtest/gtest.h>

#include <cmath>

#include "common/cost/cost_model.h"
#include "common/cost/fabric_shares.h"
#include "common/plan/sequential_layout.h"
#include "tests/unit/common/cost/cost_fixture.h"

using namespace spiderflow;

namespace {

const Catalog& cat() { return Catalog::builtin(); }

// 8 nodes, leaves l0..l3 with two nodes each (n0 n1 | n2 n3 | ...), l0 l1 under spine s0, l2 l3
// under s1, s0 s1 under core. Every leaf and spine uplink at `uplink_gbps` (0 = non-blocking).
Topology tree(double uplink_gbps) {
    Topology t = sftest::make_topology({{"c", "H100-SXM", 8, 8, 8 * 400}});
    Cluster& c = t.clusters[0];
    for (int i = 0; i < 8; ++i) c.nodes[static_cast<size_t>(i)].leaf_switch = "l" + std::to_string(i / 2);
    const double up = units::gbps_to_Bps(uplink_gbps);
    for (int l = 0; l < 4; ++l) {
        c.switches.push_back(Switch{"l" + std::to_string(l), {}, {}, up});
        for (int i = 0; i < 8; ++i)
            if (i / 2 == l) c.switches.back().nodes.push_back(c.nodes[static_cast<size_t>(i)].name);
    }
    c.switches.push_back(Switch{"s0", {"l0", "l1"}, {}, up});
    c.switches.push_back(Switch{"s1", {"l2", "l3"}, {}, up});
    c.switches.push_back(Switch{"core", {"s0", "s1"}, {}, 0});
    t.finalize("test");
    return t;
}

// tp 8, pp 2, dp 2 on the given nodes: stage 0 on the first two, stage 1 on the last two.
Plan on_nodes(const Topology& t, int a, int b, int c, int d) {
    JobSpec job = sftest::job_of(*cat().model("llama2-7b"), 64, 2048, Recompute::none);
    Plan p = make_sequential_plan(t, job, 8, 2, 2, 1);
    p.cell(0, 0) = StageCell{0, a, 0};
    p.cell(0, 1) = StageCell{0, b, 0};
    p.cell(1, 0) = StageCell{0, c, 0};
    p.cell(1, 1) = StageCell{0, d, 0};
    return p;
}

}  // namespace

TEST(FabricShares, MessagesClimbToTheLowestCommonSwitch) {
    const Topology t = tree(100);
    const cost::ClusterFabric f = cost::ClusterFabric::of(t.clusters[0]);
    std::vector<int> up, down;
    f.uplinks_between(0, 1, up, down);  // same leaf: no uplink
    EXPECT_TRUE(up.empty() && down.empty());
    f.uplinks_between(0, 2, up, down);  // l0 -> l1 under s0
    EXPECT_EQ(up, std::vector<int>{0});
    EXPECT_EQ(down, std::vector<int>{1});
    f.uplinks_between(0, 7, up, down);  // l0 -> s0 -> core -> s1 -> l3
    EXPECT_EQ(up, (std::vector<int>{0, 4}));
    EXPECT_EQ(down, (std::vector<int>{3, 5}));
    // Non-blocking switches are not on anybody's list.
    const cost::ClusterFabric open = cost::ClusterFabric::of(tree(0).clusters[0]);
    open.uplinks_between(0, 7, up, down);
    EXPECT_TRUE(up.empty() && down.empty());
}

TEST(FabricShares, AnUplinkIsSplitAmongTheMessagesClimbingIt) {
    const Topology t = tree(800);
    const std::vector<cost::ClusterFabric> fabrics{cost::ClusterFabric::of(t.clusters[0])};
    cost::FabricShares shares(fabrics);
    const StageCell n0{0, 0, 0}, n1{0, 1, 0}, n2{0, 2, 0}, n6{0, 6, 0};
    EXPECT_TRUE(std::isinf(shares.per_crossing_Bps(n0, n1)));
    EXPECT_DOUBLE_EQ(shares.per_crossing_Bps(n0, n2), units::gbps_to_Bps(800));
    shares.add(n0, n2);
    shares.add(n1, n6);  // also climbs l0
    EXPECT_DOUBLE_EQ(shares.per_crossing_Bps(n0, n2), units::gbps_to_Bps(400));
    // The other direction of l0's uplink is free.
    EXPECT_DOUBLE_EQ(shares.per_crossing_Bps(n2, n0), units::gbps_to_Bps(800));
}

TEST(FabricShares, NonBlockingFabricPricesEveryPlacementAlike) {
    const Topology t = tree(0);
    const CostModel cm(t, cat());
    const Prediction grouped = cm.estimate(on_nodes(t, 0, 1, 2, 3));
    const Prediction scattered = cm.estimate(on_nodes(t, 0, 2, 4, 6));
    ASSERT_TRUE(grouped.feasible && scattered.feasible);
    EXPECT_DOUBLE_EQ(grouped.iteration_s, scattered.iteration_s);
}

TEST(FabricShares, TaperedFabricSlowsTheCrossingsAndFavoursStagesUnderOneLeaf) {
    const Topology flat = tree(0), tapered = tree(1600);  // a node's NICs: 3200 Gb/s
    const CostModel open(flat, cat()), thin(tapered, cat());
    // Stages under one leaf each: both replicas' p2p climb l0's uplink, 800 Gb/s apiece, a
    // quarter of the NIC share they get on the non-blocking fabric; the DP rings stay in a leaf.
    const Prediction g_open = open.estimate(on_nodes(flat, 0, 1, 2, 3));
    const Prediction g_thin = thin.estimate(on_nodes(tapered, 0, 1, 2, 3));
    ASSERT_TRUE(g_open.feasible && g_thin.feasible);
    EXPECT_NEAR(g_thin.pp_comm_s / g_open.pp_comm_s, 4.0, 1e-9);
    // Scattered over four leaves, every DP ring edge also climbs an uplink.
    const Prediction s_thin = thin.estimate(on_nodes(tapered, 0, 2, 4, 6));
    ASSERT_TRUE(s_thin.feasible);
    EXPECT_GT(s_thin.iteration_s, g_thin.iteration_s);
    EXPECT_GE(s_thin.dp_comm_s, g_thin.dp_comm_s);
}
