#include <gtest/gtest.h>

#include "common/plan/plan.h"
#include "common/util/errors.h"
#include "plugins/common/rank_order.h"

using namespace spiderflow;
using namespace spiderflow::plugin;

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
    Cluster east;
    east.name = "east";
    Node e;
    e.name = "e1";
    e.gpus = 8;
    east.nodes.push_back(e);
    t.clusters = {west, east};
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
    const auto order = topology_node_order(slurm, &t, {});
    const std::vector<int> tasks = {8, 8, 8, 8};
    std::vector<int> seen(32, 0);
    for (const auto& node : slurm) {
        for (int l = 0; l < 8; ++l) {
            const auto r = compute_task_ranks(order, slurm, tasks, node, l, gpu_order(nullptr, 8));
            EXPECT_EQ(r.world_size, 32);
            EXPECT_EQ(r.master_addr, "a1");
            ++seen[static_cast<size_t>(r.rank)];
            if (node == "c1") {
                EXPECT_EQ(r.rank, 8 + l) << "c1 shares a1's switch, so it holds ranks 8..15";
                EXPECT_EQ(r.node_position, 1);
            }
        }
    }
    for (int s : seen) EXPECT_EQ(s, 1) << "every rank exactly once";
}

TEST(RankOrder, UnevenTasksPerNode) {
    const std::vector<std::string> nodes = {"x", "y"};
    const auto r = compute_task_ranks({"y", "x"}, nodes, {2, 3}, "x", 1, {});
    EXPECT_EQ(r.rank, 3 + 1);
    EXPECT_EQ(r.world_size, 5);
    EXPECT_THROW(compute_task_ranks({"y", "x"}, nodes, {2, 3}, "q", 0, {}), InputError);
    EXPECT_THROW(compute_task_ranks({"y", "x"}, nodes, {2, 3}, "x", 2, {}), InputError);
    EXPECT_THROW(compute_task_ranks({"y", "x"}, nodes, {2}, "x", 0, {}), InputError);
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
