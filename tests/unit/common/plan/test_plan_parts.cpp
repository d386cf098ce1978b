// split_by_cluster: the per-cluster parts co-allocation and job_submit's rewrite work from.
#include <gtest/gtest.h>

#include "common/plan/plan_parts.h"
#include "common/util/errors.h"
#include "tests/unit/common/plan/plan_fixture.h"

using namespace spiderflow;

TEST(PlanParts, PipelineAcrossSitesGivesContiguousRankRanges) {
    const Topology topo = test::two_sites();
    const auto parts = split_by_cluster(test::cross_plan(), topo);
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].cluster_name, "east") << "rank 0's cluster first";
    EXPECT_EQ(parts[1].cluster_name, "west");
    for (const auto& p : parts) {
        EXPECT_EQ(p.tasks, 16);
        EXPECT_EQ(p.nodes, (std::vector<int>{0, 1}));
        EXPECT_EQ(p.gpus_per_node, (std::vector<int>{8, 8}));
        EXPECT_TRUE(p.even());
    }
    EXPECT_EQ(parts[0].rank_offset, 0);
    EXPECT_EQ(parts[1].rank_offset, 16);
}

TEST(PlanParts, ReplicasAcrossSitesHaveNoSingleOffset) {
    const Topology topo = test::two_sites();
    Plan p = test::cross_plan();
    // Replicas 0,1 in east and 2,3 in west, both stages each: DP crosses, ranks interleave.
    for (int s = 0; s < 2; ++s)
        for (int r = 0; r < 4; ++r) p.cell(s, r) = StageCell{r / 2, s, (r % 2) * 4};
    const auto parts = split_by_cluster(p, topo);
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].rank_offset, -1);
    EXPECT_EQ(parts[0].ranks.front(), 0);
    EXPECT_EQ(parts[0].ranks[7], 7) << "stage 0 of replicas 0 and 1";
    EXPECT_EQ(parts[0].ranks[8], 16) << "then stage 1 of replica 0";
    EXPECT_EQ(parts[1].ranks.front(), 8);
    int total = 0;
    for (const auto& part : parts) total += part.tasks;
    EXPECT_EQ(total, p.world_size());
}

TEST(PlanParts, UnevenNodesAreFlaggedAndBadCellsRefused) {
    const Topology topo = test::two_sites();
    Plan p = test::cross_plan();
    p.tp = 2;                           // cells at GPUs 0 and 4 leave 2..3 free on every node
    p.cell(1, 3) = StageCell{0, 0, 2};  // a third cell on east-n0 is not a rank layout Slurm can ask for
    const auto parts = split_by_cluster(p, topo);
    EXPECT_FALSE(parts[0].even());
    p.cell(0, 0).cluster = 7;
    EXPECT_THROW(split_by_cluster(p, topo), InputError);
}

TEST(PlanParts, CellsSharingGpusAreRefused) {
    const Topology topo = test::two_sites();
    Plan p = test::cross_plan();
    p.cell(1, 3) = p.cell(0, 1);  // both on east-n0 GPUs 4..7: two Slurm tasks per GPU
    EXPECT_THROW(split_by_cluster(p, topo), InputError);
}
