// Fan-out layouts: the hub keeps the first stages of every replica, the tails spread over
// clusters so that no two crossings share a WAN link when the topology allows it.
#include <gtest/gtest.h>

#include <set>

#include "common/planner/spinsearch/fan_out.h"
#include "fixtures.h"

using namespace spiderflow;

namespace {

// A hub with direct links of equal width to three spokes; spokes joined by thinner links.
Topology star() {
    Topology t;
    t.name = "star";
    t.clusters.push_back(sftest::make_cluster("hub", {{"A100-80GB", 2}}));
    for (const char* n : {"s1", "s2", "s3"}) t.clusters.push_back(sftest::make_cluster(n, {{"A100-80GB", 1}}));
    for (int s = 1; s <= 3; ++s) sftest::link(t, 0, s, 10, 20);
    sftest::link(t, 1, 2, 1, 20);
    sftest::link(t, 2, 3, 1, 20);
    t.finalize("star");
    return t;
}

}  // namespace

TEST(FanOut, TailsTakeDistinctLinks) {
    const Topology t = star();
    // tp 8: the hub offers 2 slots, each spoke 1. pp 2, dp 2: stage 0 of both replicas at the hub.
    const spin::ClusterShare hub{0, 2, 0};
    const std::vector<spin::ClusterShare> others{{1, 1, 0}, {2, 1, 0}, {3, 1, 0}};
    const std::vector<int> cells = spin::fan_out(t, hub, others, 2, 2, 1, true);
    ASSERT_EQ(cells.size(), 4u);
    EXPECT_EQ(cells[0], 0);  // stage 0, replica 0
    EXPECT_EQ(cells[1], 0);  // stage 0, replica 1
    EXPECT_NE(cells[2], 0);
    EXPECT_NE(cells[3], 0);
    EXPECT_NE(cells[2], cells[3]);  // one crossing per hub-spoke link
}

TEST(FanOut, HubLastPutsTheHubOnTheFinalStages) {
    const Topology t = star();
    const spin::ClusterShare hub{0, 2, 0};
    const std::vector<spin::ClusterShare> others{{1, 1, 0}, {2, 1, 0}, {3, 1, 0}};
    const std::vector<int> cells = spin::fan_out(t, hub, others, 2, 2, 1, false);
    ASSERT_EQ(cells.size(), 4u);
    EXPECT_EQ(cells[2], 0);
    EXPECT_EQ(cells[3], 0);
    EXPECT_NE(cells[0], cells[1]);
}

TEST(FanOut, RefusesWhatDoesNotFit) {
    const Topology t = star();
    const std::vector<spin::ClusterShare> others{{1, 1, 0}, {2, 1, 0}};
    EXPECT_TRUE(spin::fan_out(t, {0, 1, 0}, others, 2, 2, 1, true).empty());   // hub holds 1 of 2 cells
    EXPECT_TRUE(spin::fan_out(t, {0, 2, 0}, {{1, 1, 0}}, 2, 2, 1, true).empty());  // one tail has nowhere to go
    EXPECT_TRUE(spin::fan_out(t, {0, 8, 0}, others, 2, 2, 2, true).empty());   // no tail left at all
}

TEST(FanOut, DepthsAreAllThatFitAndHalf) {
    EXPECT_EQ(spin::fan_out_depths(16, 8, 4), (std::vector<int>{4, 2}));
    EXPECT_EQ(spin::fan_out_depths(40, 8, 4), (std::vector<int>{7, 3}));
    EXPECT_TRUE(spin::fan_out_depths(3, 8, 4).empty());
}
