#include <gtest/gtest.h>

#include <map>

#include "common/plan/plan.h"
#include "common/util/errors.h"
#include "services/slurmjob/rank_order.h"

using namespace spiderflow;
using namespace spiderflow::slurmjob;

namespace {

// Two clusters; in "west" the names' alphabetical order (a1 b1 c1 d1) interleaves the switches.
Topology two_switch_topology() {
    Topology t;
    Cluster west;
    west.name = "west";
    for (auto [name, sw] : std::vector<std::pair<const char*, const char*>>{{"a1", "s1"}, {"c1", "s1"}, {"b1", "s2"}, {"d1", "s2"}}) {
        Node n;
        n.name = name;
        n.gpus = 8;
        n.leaf_switch = sw;
        west.nodes.push_back(n);
    }
    west.switches = {Switch{"s1", {}, {}, 0}, Switch{"s2", {}, {}, 0}};
    Cluster east;
    east.name = "east";
    Node e;
    e.name = "e1";
    e.gpus = 8;
    east.nodes.push_back(e);
    t.clusters = {west, east};
    t.finalize("test");
    return t;
}

}  // namespace

TEST(RankOrder, GroupsBySwitchNotByName) {
    const Topology t = two_switch_topology();
    const std::vector<std::string> slurm = {"a1", "b1", "c1", "d1"};  // Slurm's (alphabetical) order
    const auto order = topology_node_order(slurm, &t, {});
    EXPECT_EQ(order, (std::vector<std::string>{"a1", "c1", "b1", "d1"}));
}

TEST(RankOrder, ClustersFollowThePlanOrder) {
    const Topology t = two_switch_topology();
    const auto order = topology_node_order({"a1", "b1", "e1"}, &t, {"east", "west"});
    EXPECT_EQ(order, (std::vector<std::string>{"e1", "a1", "b1"}));
}

TEST(RankOrder, UnknownNodesKeepSlurmOrderAtTheEnd) {
    const Topology t = two_switch_topology();
    EXPECT_EQ(topology_node_order({"zz", "b1", "aa", "a1"}, &t, {}),
              (std::vector<std::string>{"a1", "b1", "zz", "aa"}));
    EXPECT_EQ(topology_node_order({"zz", "aa"}, nullptr, {}), (std::vector<std::string>{"zz", "aa"}));
}

TEST(RankOrder, RanksAreContiguousPerNodeInTopologyOrder) {
    const Topology t = two_switch_topology();
    const std::vector<std::string> slurm = {"a1", "b1", "c1", "d1"};
    const auto slots = ordered_rank_slots(slurm, {8, 8, 8, 8}, &t, {});
    ASSERT_EQ(slots.size(), 32u);
    std::map<std::string, int> per_node;
    for (size_t r = 0; r < slots.size(); ++r) {
        EXPECT_EQ(slots[r].local, per_node[slots[r].node]++) << "rank " << r << ": locals count up per node";
        if (r > 0 && slots[r].node != slots[r - 1].node) {
            EXPECT_EQ(per_node[slots[r].node], 1) << slots[r].node << " holds one contiguous block of ranks";
        }
    }
    EXPECT_EQ(slots.front().node, "a1") << "rank 0 (MASTER_ADDR) is the first node in topology order";
    for (int l = 0; l < 8; ++l) EXPECT_EQ(slots[static_cast<size_t>(8 + l)].node, "c1") << "c1 shares a1's switch, so it holds ranks 8..15";
}

TEST(RankOrder, UnevenTasksPerNode) {
    const std::vector<std::string> nodes = {"x", "y"};
    const auto slots = ordered_rank_slots(nodes, {2, 3}, nullptr, {});
    ASSERT_EQ(slots.size(), 5u);
    EXPECT_EQ(slots[1].node, "x");
    EXPECT_EQ(slots[1].local, 1);
    EXPECT_EQ(slots[4].node, "y");
    EXPECT_EQ(slots[4].local, 2);
    EXPECT_THROW(ordered_rank_slots(nodes, {2}, nullptr, {}), InputError);
}

TEST(RankOrder, LocalRanksGroupNvlinkDomains) {
    Node n;
    n.gpus = 4;
    for (int i = 0; i < 4; ++i) {
        GpuSlot s;
        s.index = i;
        s.nvlink_domain = i % 2;  // GPUs 0,2 share a domain, 1,3 the other
        n.gpu_slots.push_back(s);
    }
    EXPECT_EQ(gpu_order(&n, 4), (std::vector<int>{0, 2, 1, 3}));
    EXPECT_EQ(gpu_order(nullptr, 3), (std::vector<int>{0, 1, 2}));
}

TEST(RankOrder, MegatronCoordinates) {
    // tp fastest, then dp, then pp: tp=2, pp=2, dp=2.
    EXPECT_EQ(coords_of_rank(0, 2, 2, 2).tp, 0);
    const auto c5 = coords_of_rank(5, 2, 2, 2);
    EXPECT_EQ(c5.tp, 1);
    EXPECT_EQ(c5.dp, 0);
    EXPECT_EQ(c5.pp, 1);
    const auto c3 = coords_of_rank(3, 2, 2, 2);
    EXPECT_EQ(c3.dp, 1);
    EXPECT_EQ(c3.pp, 0);
}

TEST(RankOrder, CoordinatesAgreeWithPlanRanks) {
    Plan p;
    p.tp = 2;
    p.pp = 3;
    p.dp = 2;
    p.layers_per_stage = {4, 4, 4};
    p.cells.assign(6, StageCell{0, 0, 0});
    for (const auto& r : p.ranks()) {
        const auto c = coords_of_rank(r.rank, p.tp, p.pp, p.dp);
        EXPECT_EQ(c.tp, r.tp);
        EXPECT_EQ(c.pp, r.pp);
        EXPECT_EQ(c.dp, r.dp);
    }
}
