// The node pick behind select/spiderflow_cons_tres: stages under one leaf switch, few leaf
// switches, nearby switches for consecutive stages, and no pick when too few nodes are free.
#include <gtest/gtest.h>

#include <memory>

#include "common/site/node_pick.h"

namespace spiderflow {
namespace {

// root -> spine0 {leaf0, leaf1}, spine1 {leaf2, leaf3}; leaf i holds nodes n(2i), n(2i+1), 4 GPUs each.
Topology tree_cluster() {
    Topology t;
    t.name = "pick";
    Cluster c;
    c.name = "c";
    for (int i = 0; i < 8; ++i) {
        Node n;
        n.name = "n" + std::to_string(i);
        n.gpu_type = "A100-80GB";
        n.gpus = 4;
        n.leaf_switch = "leaf" + std::to_string(i / 2);
        c.nodes.push_back(n);
    }
    for (int l = 0; l < 4; ++l) {
        c.switches.push_back(Switch{"leaf" + std::to_string(l), {}, {"n" + std::to_string(2 * l), "n" + std::to_string(2 * l + 1)}, 0});
    }
    c.switches.push_back(Switch{"spine0", {"leaf0", "leaf1"}, {}, 0});
    c.switches.push_back(Switch{"spine1", {"leaf2", "leaf3"}, {}, 0});
    c.switches.push_back(Switch{"root", {"spine0", "spine1"}, {}, 0});
    t.clusters.push_back(c);
    t.finalize("test");
    return t;
}

std::vector<int> free_except(std::initializer_list<int> busy) {
    std::vector<int> f(8, 4);
    for (int b : busy) f[static_cast<size_t>(b)] = 0;
    return f;
}

TEST(NodePick, FourNodesTwoStagesLandOnTwoWholeSwitches) {
    const Topology t = tree_cluster();
    // Background jobs on n0 and n3: leaf0 and leaf1 have one free node each, leaf2 and leaf3 two.
    auto pick = pick_nodes(t.clusters[0], free_except({0, 3}), {}, PickRequest{4, 4, 2});
    ASSERT_TRUE(pick.has_value());
    EXPECT_EQ(pick->nodes, (std::vector<int>{4, 5, 6, 7}));
    EXPECT_EQ(pick->leaf_switches, 2);
    EXPECT_EQ(pick->split_stages, 0);
}

TEST(NodePick, LowestIndexFirstFitScattersTheSameJob) {
    const Topology t = tree_cluster();
    // What a topology-blind first fit takes under the same load: n1, n2, n4, n5.
    const NodePick blind = describe_pick(t.clusters[0], {1, 2, 4, 5}, 2);
    EXPECT_EQ(blind.leaf_switches, 3);
    EXPECT_EQ(blind.split_stages, 1);
}

TEST(NodePick, BestFitLeavesTheFullerSwitchWhole) {
    const Topology t = tree_cluster();
    // Two nodes wanted; leaf0 has one free, leaf1 two, leaf2 two: a whole switch, the first such.
    auto pick = pick_nodes(t.clusters[0], free_except({0, 6, 7}), {}, PickRequest{2, 4, 1});
    ASSERT_TRUE(pick.has_value());
    EXPECT_EQ(pick->leaf_switches, 1);
    EXPECT_EQ(pick->nodes, (std::vector<int>{2, 3}));
}

TEST(NodePick, NextStagePrefersTheSiblingSwitch) {
    const Topology t = tree_cluster();
    // Six nodes in three stages; n4 busy, so leaf2 holds no whole stage. After leaf0, leaf1 and
    // leaf3 each hold one: leaf1 shares leaf0's spine, leaf3 does not.
    auto pick = pick_nodes(t.clusters[0], free_except({4}), {}, PickRequest{6, 4, 3});
    ASSERT_TRUE(pick.has_value());
    EXPECT_EQ(pick->nodes, (std::vector<int>{0, 1, 2, 3, 6, 7}));
    EXPECT_EQ(pick->leaf_switches, 3);
    EXPECT_EQ(pick->split_stages, 0);
}

TEST(NodePick, PartlyUsedNodesAreNotCandidatesForWholeNodeStages) {
    const Topology t = tree_cluster();
    std::vector<int> free = free_except({});
    free[4] = 2;  // a job holds half of n4
    auto pick = pick_nodes(t.clusters[0], free, {}, PickRequest{8, 4, 2});
    EXPECT_FALSE(pick.has_value());
    auto half = pick_nodes(t.clusters[0], free, {}, PickRequest{2, 2, 1});
    ASSERT_TRUE(half.has_value());
}

TEST(NodePick, OnlyAllowedNodes) {
    const Topology t = tree_cluster();
    std::vector<bool> allowed(8, false);
    allowed[1] = allowed[2] = true;
    auto pick = pick_nodes(t.clusters[0], free_except({}), allowed, PickRequest{2, 4, 1});
    ASSERT_TRUE(pick.has_value());
    EXPECT_EQ(pick->nodes, (std::vector<int>{1, 2}));
    EXPECT_FALSE(pick_nodes(t.clusters[0], free_except({}), allowed, PickRequest{3, 4, 1}).has_value());
}

TEST(NodePick, UsesEveryFreeNodeWhenWholeStagesCannotFit) {
    const Topology t = tree_cluster();
    // Exactly four free nodes, one per leaf: stages must split, but the pick still succeeds.
    auto pick = pick_nodes(t.clusters[0], free_except({0, 2, 4, 6}), {}, PickRequest{4, 4, 2});
    ASSERT_TRUE(pick.has_value());
    EXPECT_EQ(pick->nodes, (std::vector<int>{1, 3, 5, 7}));
    EXPECT_EQ(pick->split_stages, 2);
}

TEST(NodePick, FromSiteState) {
    auto t = std::make_shared<const Topology>(tree_cluster());
    SiteState state(t);
    state.allocate("bg", {{NodeName{"c", "n0"}, 4, 0}, {NodeName{"c", "n3"}, 4, 0}}, 0);
    auto pick = pick_nodes(state, 0, 10, {}, PickRequest{4, 4, 2});
    ASSERT_TRUE(pick.has_value());
    EXPECT_EQ(pick->nodes, (std::vector<int>{4, 5, 6, 7}));
}

}  // namespace
}  // namespace spiderflow
