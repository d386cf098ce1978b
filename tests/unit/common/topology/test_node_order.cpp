#include <gtest/gtest.h>

#include <stdexcept>

#include "common/topology/topology.h"
#include "tests/unit/common/topology/topo_fixture.h"

using namespace spiderflow;

namespace {

// One cluster whose nodes are listed as slurm.conf lists them, by name, so the switches interleave.
Topology interleaved(const std::vector<std::string>& switches) {
    Topology t;
    Cluster c = test::small_cluster("west", static_cast<int>(switches.size()));
    for (size_t n = 0; n < switches.size(); ++n) c.nodes[n].leaf_switch = switches[n];
    for (const char* s : {"s1", "s2"}) c.switches.push_back(Switch{s, {}, {}, 0});
    t.clusters = {c};
    t.finalize("test");
    return t;
}

}  // namespace

TEST(NodeOrder, GroupsLeafSwitchesByFirstMember) {
    EXPECT_EQ(interleaved({"s1", "s2", "s1", "s2"}).clusters[0].node_order(), (std::vector<int>{0, 2, 1, 3}));
    // s2 appears first, so its group leads.
    EXPECT_EQ(interleaved({"s2", "s1", "s2", "s1"}).clusters[0].node_order(), (std::vector<int>{0, 2, 1, 3}));
}

TEST(NodeOrder, NodeWithoutSwitchIsItsOwnGroup) {
    EXPECT_EQ(interleaved({"s1", "", "s2", "s1", ""}).clusters[0].node_order(), (std::vector<int>{0, 3, 1, 2, 4}));
}

TEST(NodeOrder, GroupedClusterKeepsIndexOrder) {
    EXPECT_EQ(interleaved({"s1", "s1", "s2", "s2"}).clusters[0].node_order(), (std::vector<int>{0, 1, 2, 3}));
    Topology t;
    t.clusters = {test::small_cluster("plain", 3)};
    t.finalize("test");
    EXPECT_EQ(t.clusters[0].node_order(), (std::vector<int>{0, 1, 2}));
}

TEST(NodeOrder, AskedBeforeFinalizeThrows) {
    Cluster c = test::small_cluster("west", 2);
    EXPECT_THROW(c.node_order(), std::logic_error);
}
