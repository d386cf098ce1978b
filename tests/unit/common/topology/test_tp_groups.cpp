#include <gtest/gtest.h>

#include "common/topology/topology.h"

using namespace spiderflow;

namespace {

Node node(int gpus, int domain) {
    Node n;
    n.name = "n";
    n.gpus = gpus;
    n.nvlink_domain_size = domain;
    return n;
}

using V = std::vector<int>;

}  // namespace

TEST(TpGroups, DomainSizeDefaultsToTheNode) {
    EXPECT_EQ(node(8, 0).nvlink_domain_gpus(), 8);
    EXPECT_EQ(node(8, 4).nvlink_domain_gpus(), 4);
    EXPECT_EQ(node(2, 8).nvlink_domain_gpus(), 2);  // a site view with 2 GPUs left of an 8-GPU domain
}

TEST(TpGroups, RulesAgreeWhenTpDividesTheDomain) {
    for (TpAlign a : {TpAlign::domain, TpAlign::node}) {
        EXPECT_EQ(tp_group_first_gpus(node(8, 8), 2, a), (V{0, 2, 4, 6}));
        EXPECT_EQ(tp_group_first_gpus(node(8, 4), 4, a), (V{0, 4}));
        EXPECT_EQ(tp_group_first_gpus(node(8, 0), 8, a), (V{0}));
        // A smaller last domain holds what fits.
        EXPECT_EQ(tp_group_first_gpus(node(10, 4), 2, a), (V{0, 2, 4, 6, 8}));
        EXPECT_EQ(tp_group_first_gpus(node(10, 4), 4, a), (V{0, 4}));
        EXPECT_TRUE(tp_group_first_gpus(node(8, 8), 0, a).empty());
        EXPECT_TRUE(tp_group_first_gpus(node(0, 0), 1, a).empty());
        EXPECT_TRUE(tp_group_first_gpus(node(8, 8), 16, a).empty());
    }
}

TEST(TpGroups, DomainRuleStartsAtEachDomain) {
    EXPECT_EQ(tp_group_first_gpus(node(16, 8), 3), (V{0, 3, 8, 11}));
    EXPECT_EQ(tp_group_first_gpus(node(16, 8), 3, TpAlign::node), (V{0, 3, 9, 12}));
}

TEST(TpGroups, OnlyTheNodeRuleLetsTpOutgrowTheDomain) {
    EXPECT_TRUE(tp_group_first_gpus(node(8, 2), 4).empty());
    EXPECT_EQ(tp_group_first_gpus(node(8, 2), 4, TpAlign::node), (V{0, 4}));
}
