// coflow_levels: the traffic levels sched/spiderflow gives SpiderFlow jobs, smallest WAN
// bottleneck first; jobs without WAN traffic or without a carried plan get none.
#include <gtest/gtest.h>

#include "common/cost/cost_model.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_traffic.h"
#include "common/plan/plan_transport.h"
#include "common/plan/sequential_layout.h"
#include "common/util/units.h"
#include "common/planner/plan_job.h"
#include "services/slurmjob/coflow_levels.h"
#include "services/slurmjob/plan_summary.h"
#include "tests/unit/common/planner/fixtures.h"
#include "tests/unit/services/slurmjob/carried_summary.h"

using namespace spiderflow;
using namespace spiderflow::slurmjob;

using spiderflow::slurmjob::test::summary_for;
using spiderflow::slurmjob::test::summary_of;

TEST(CoflowLevels, SmallestWanBottleneckFirst) {
    const Topology t = sftest::two_sites(10);
    // 64 GPUs on two 32-GPU sites: both plans cross the one WAN link; the 13B model moves more.
    const std::string small = summary_for(t, "llama3-8b", 256, 64);
    const std::string large = summary_for(t, "gpt3-13b", 256, 64);
    const auto small_s = wan_bottleneck_s(small, t);
    const auto large_s = wan_bottleneck_s(large, t);
    ASSERT_TRUE(small_s.has_value());
    ASSERT_TRUE(large_s.has_value());
    ASSERT_NE(*small_s, *large_s);
    const int first = *small_s < *large_s ? 11 : 12;
    const auto levels = coflow_levels({{12, large}, {11, small}}, t);
    ASSERT_EQ(levels.size(), 2u);
    EXPECT_EQ(levels.at(first), 0);
    EXPECT_EQ(levels.at(first == 11 ? 12 : 11), 1);
}

TEST(CoflowLevels, JobsWithoutWanTrafficOrPlanGetNoLevel) {
    const Topology t = sftest::two_sites(10);
    const std::string inside = summary_for(t, "llama3-8b", 64, 16);   // fits one site
    EXPECT_FALSE(wan_bottleneck_s(inside, t).has_value());
    EXPECT_FALSE(wan_bottleneck_s("an admin's own comment", t).has_value());
    std::vector<std::string> skipped;
    const auto levels = coflow_levels({{1, inside}, {2, "spiderflow plan model=x tp=1 pp=1 dp=1 mb=1 nodes=1x8 iter_s=1 plan=garbage"}}, t, &skipped);
    EXPECT_TRUE(levels.empty());
    ASSERT_EQ(skipped.size(), 1u) << "a plan that does not decode is named, not ordered";
    EXPECT_NE(skipped[0].find("job 2"), std::string::npos) << skipped[0];
}

TEST(CoflowLevels, AMemoDecodesEachSummaryOnceAndForgetsJobsThatLeft) {
    const Topology t = sftest::two_sites(10);
    const std::string small = summary_for(t, "llama3-8b", 256, 64);
    const std::string large = summary_for(t, "gpt3-13b", 256, 64);
    BottleneckMemo memo;
    const auto first = coflow_levels({{12, large}, {11, small}}, t, nullptr, &memo);
    ASSERT_EQ(memo.jobs.size(), 2u);
    // The memo is what the next cycle believes for the same summary: flip the two bottlenecks
    // there and the order flips, which it could not if the plans were decoded again.
    std::swap(memo.jobs.at(11).bottleneck, memo.jobs.at(12).bottleneck);
    const auto second = coflow_levels({{12, large}, {11, small}}, t, nullptr, &memo);
    EXPECT_EQ(second.at(11), first.at(12));
    EXPECT_EQ(second.at(12), first.at(11));
    // A changed summary is decoded afresh; a job no longer passed is forgotten.
    const auto third = coflow_levels({{11, large}}, t, nullptr, &memo);
    ASSERT_EQ(memo.jobs.size(), 1u);
    EXPECT_EQ(memo.jobs.at(11).summary, large);
    EXPECT_EQ(memo.jobs.at(11).bottleneck, wan_bottleneck_s(large, t));
    // Another topology object: nothing is trusted.
    const Topology other = sftest::two_sites(10);
    memo.jobs.at(11).bottleneck = 123.0;
    coflow_levels({{11, large}}, other, nullptr, &memo);
    EXPECT_EQ(memo.jobs.at(11).bottleneck, wan_bottleneck_s(large, other));
    (void)third;
}

TEST(CoflowLevels, PipelineBytesRideTheFastestRouteAsTheCostModelPricesThem) {
    // east-west direct (1 Gb/s, 5 ms) and a wider detour through mid (2 Gb/s, 2 x 100 ms): the
    // widest route detours, a pipeline's activations go direct.
    Topology t;
    t.name = "triangle";
    t.clusters.push_back(sftest::make_cluster("east", {{"A100-80GB", 4}}));
    t.clusters.push_back(sftest::make_cluster("west", {{"A100-80GB", 4}}));
    t.clusters.push_back(sftest::make_cluster("mid", {{"A100-80GB", 1}}));
    sftest::link(t, 0, 1, 1, 5);
    sftest::link(t, 0, 2, 2, 100);
    sftest::link(t, 2, 1, 2, 100);
    t.finalize("triangle");
    ASSERT_EQ(t.path(0, 1).hops, 2);
    // Stage 0 on east's four nodes, stage 1 on west's: every pipeline crosses, no DP does.
    JobSpec job = sftest::request("llama3-8b", 64, 64).job;
    const Plan plan = make_sequential_plan(t, job, 8, 2, 4, 1);
    double pp = 0, dp = 0;
    for (const CrossTraffic& c : cross_cluster_traffic(plan)) {
        pp += c.pp_bytes;
        dp += c.dp_bytes;
    }
    ASSERT_GT(pp, 0);
    ASSERT_EQ(dp, 0);
    const auto b = wan_bottleneck_s(summary_of(plan, t), t);
    ASSERT_TRUE(b.has_value());
    EXPECT_DOUBLE_EQ(*b, pp / units::gbps_to_Bps(1));   // on the direct link, not the detour's 2 Gb/s
}
