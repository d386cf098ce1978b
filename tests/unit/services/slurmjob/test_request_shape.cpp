// The pieces of request shaping that need no plan: whether a count is the user's, tasks per
// node from -n / --ntasks-per-node, and the even counts a cluster can be asked for.
#include <gtest/gtest.h>

#include "services/slurmjob/request_shape.h"

using namespace spiderflow;
using namespace spiderflow::slurmjob;

TEST(RequestShape, ACountOtherThanAskedOnlyWhereTheUserLetSpiderflowChoose) {
    SlurmRequest req;
    EXPECT_TRUE(count_allowed(req, 12, GpuCountMode::exact));  // no --gpus: any count
    req.gpus = 16;
    EXPECT_TRUE(count_allowed(req, 16, GpuCountMode::exact));
    EXPECT_FALSE(count_allowed(req, 8, GpuCountMode::exact));
    EXPECT_TRUE(count_allowed(req, 8, GpuCountMode::at_most));
    EXPECT_FALSE(count_allowed(req, 24, GpuCountMode::at_most));
    EXPECT_TRUE(count_allowed(req, 24, GpuCountMode::best));
}

TEST(RequestShape, TasksAreOnePerGpuOrOnePerNode) {
    SlurmRequest req;
    int tpn = 0;
    EXPECT_FALSE(choose_tasks_per_node(req, 2, 8, 16, &tpn));
    EXPECT_EQ(tpn, 8);
    req.ntasks = 2;  // one launcher per node (torchrun)
    EXPECT_FALSE(choose_tasks_per_node(req, 2, 8, 16, &tpn));
    EXPECT_EQ(tpn, 1);
    req = {};
    req.ntasks_per_node = 4;
    const auto bad = choose_tasks_per_node(req, 2, 8, 16, &tpn);
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->kind, RejectKind::tasks);
    EXPECT_NE(bad->message.find("--ntasks-per-node=4"), std::string::npos) << bad->message;
    req = {};
    req.ntasks = 12;
    const auto odd = choose_tasks_per_node(req, 2, 8, 16, &tpn);
    ASSERT_TRUE(odd);
    EXPECT_NE(odd->message.find("use -n 16"), std::string::npos) << odd->message;
}

TEST(RequestShape, EvenCountsAreWholeNodesWithinTheCluster) {
    Cluster c;
    for (int i = 0; i < 3; ++i) {
        Node n;
        n.name = "n" + std::to_string(i);
        n.gpus = 8;
        c.nodes.push_back(n);
    }
    EXPECT_EQ(even_counts_near(12, c), "--gpus=8 or --gpus=16");
    EXPECT_EQ(even_counts_near(4, c), "--gpus=8");
    EXPECT_EQ(even_counts_near(20, c), "--gpus=16 or --gpus=24");
    EXPECT_EQ(even_counts_near(23, c), "--gpus=16 or --gpus=24");
    Cluster cpu;
    cpu.nodes.push_back(Node{});
    EXPECT_EQ(even_counts_near(8, cpu), "");
}
