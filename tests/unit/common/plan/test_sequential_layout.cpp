#include <gtest/gtest.h>

#include "common/plan/layer_split.h"
#include "common/plan/sequential_layout.h"
#include "tests/unit/common/plan/plan_fixture.h"

using namespace spiderflow;

// Nodes listed by name (as slurm.conf does) interleave the leaf switches; the fill follows
// Cluster::node_order, so both replicas of a stage share a switch.
TEST(SequentialLayout, FillsOneLeafSwitchBeforeTheNext) {
    Topology t = test::two_sites();
    Cluster& east = t.clusters[0];
    east.nodes.resize(4, east.nodes[0]);
    const char* switches[] = {"s1", "s2", "s1", "s2"};
    for (size_t n = 0; n < 4; ++n) {
        east.nodes[n].name = "east-n" + std::to_string(n);
        east.nodes[n].leaf_switch = switches[n];
    }
    east.switches = {Switch{"s1", {}, {}, 0}, Switch{"s2", {}, {}, 0}};
    t.finalize("test");

    JobSpec job;
    job.model = test::small_model();
    job.global_batch = 4;
    const Plan plan = make_sequential_plan(t, job, 8, 2, 2, 1);
    ASSERT_EQ(plan.cells.size(), 4u);
    std::vector<int> nodes;
    for (const StageCell& c : plan.cells) {
        EXPECT_EQ(c.cluster, 0);
        nodes.push_back(c.node);
    }
    EXPECT_EQ(nodes, (std::vector<int>{0, 2, 1, 3}));
    EXPECT_EQ(east.nodes[static_cast<size_t>(plan.cell(0, 0).node)].leaf_switch, "s1");
    EXPECT_EQ(east.nodes[static_cast<size_t>(plan.cell(0, 1).node)].leaf_switch, "s1");
    EXPECT_EQ(east.nodes[static_cast<size_t>(plan.cell(1, 0).node)].leaf_switch, "s2");
    EXPECT_EQ(east.nodes[static_cast<size_t>(plan.cell(1, 1).node)].leaf_switch, "s2");
}

// 10 layers on 4 stages: the remainder on the leading stages (3,3,2,2) is a split Megatron-LM
// rejects, so the sequential layout takes the launchable one.
TEST(SequentialLayout, SplitsLayersAsMegatronCanLaunch) {
    JobSpec job;
    job.model = test::small_model();
    job.model.layers = 10;
    job.global_batch = 4;
    const Plan plan = make_sequential_plan(test::two_sites(), job, 8, 4, 1, 1);
    EXPECT_EQ(plan.layers_per_stage, (std::vector<int>{2, 3, 3, 2}));
    EXPECT_EQ(megatron_split_problem(plan.layers_per_stage), "");
}
