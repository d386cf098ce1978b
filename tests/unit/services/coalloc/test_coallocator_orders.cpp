// The orders each cluster's agent is given, derived from the jobs' states.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "services/coalloc/coallocator.h"
#include "tests/unit/services/coalloc/coalloc_fixture.h"

using namespace spiderflow::coalloc;
using namespace spiderflow::coalloc::test;

TEST(Coallocator, SbatchsHeldJobIsTheHomePartUntilARequeue) {
    Coallocator c;
    XJob job = two_parts("oregon:44");
    job.home_job = 44;
    job.step_env = {{"SPIDERFLOW_TP", "8"}};
    c.submit(job, 0);
    c.step(0, kNoSilence);
    offer_and_reserve(c, "oregon:44", 100, 1);
    const auto home = c.orders_for("oregon");
    ASSERT_EQ(home.size(), 1u);
    EXPECT_EQ(home[0].kind, OrderKind::Submit);
    EXPECT_EQ(home[0].held_job, 44u);  // released, not submitted again
    const std::vector<std::pair<std::string, std::string>> first_run = {{"SPIDERFLOW_TP", "8"}, {"SPIDERFLOW_ATTEMPT", "1"}};
    EXPECT_EQ(home[0].step_env, first_run);
    const auto other = c.orders_for("ohio");
    ASSERT_EQ(other.size(), 1u);
    EXPECT_EQ(other[0].held_job, 0u);  // the other cluster submits its part
    EXPECT_EQ(other[0].step_env, first_run);
}

TEST(Coallocator, AJobThatFailsBeforeItsHomePartIsReleasedCancelsTheHeldJob) {
    Coallocator c;
    XJob job = two_parts("oregon:45");
    job.home_job = 45;
    c.submit(job, 0);
    c.step(0, kNoSilence);
    Report refused = rep(ReportKind::Refused, "oregon:45", 1, 1);
    refused.reason = "no user 'alice' on cluster ohio";
    ASSERT_TRUE(c.report("ohio", refused, 5));
    EXPECT_EQ(c.find("oregon:45")->state, XJobState::Ending);
    const auto home = c.orders_for("oregon");
    ASSERT_EQ(home.size(), 1u);
    EXPECT_EQ(home[0].kind, OrderKind::Cancel);
    EXPECT_EQ(home[0].job_id, 45u);  // sbatch's job does not wait, held, for ever
    Report ended = rep(ReportKind::Ended, "oregon:45", 0, 1);
    ended.job_id = 45;
    ended.reason = "cancelled: " + home[0].reason;
    ASSERT_TRUE(c.report("oregon", ended, 6));
    EXPECT_EQ(c.find("oregon:45")->state, XJobState::Failed);
}

// Level-triggered: the orders follow from the jobs' states, so an agent that asks again (after a
// restart, say) is told the same; each cluster is told only about its own part.
TEST(Coallocator, OrdersAreTheSameEachTimeAndOnlyForTheirCluster) {
    Coallocator c;
    c.submit(two_parts("oregon:50"), 0);
    c.step(0, kNoSilence);
    const auto first = c.orders_for("ohio");
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].kind, OrderKind::WillRun);
    EXPECT_EQ(first[0].part, 1u);
    EXPECT_EQ(first[0].nodes, 1);
    const auto again = c.orders_for("ohio");
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].kind, first[0].kind);
    EXPECT_EQ(again[0].not_before, first[0].not_before);
    EXPECT_TRUE(c.orders_for("texas").empty());
    // Once ohio offered, it waits: nothing more for it until every cluster has.
    Report o = rep(ReportKind::Offer, "oregon:50", 1, 1);
    o.earliest_start = 100;
    ASSERT_TRUE(c.report("ohio", o, 1));
    EXPECT_TRUE(c.orders_for("ohio").empty());
    EXPECT_EQ(c.orders_for("oregon").size(), 1u);
}

// A Submit order carries the world: its size, the part's first rank, where rank 0 listens (part
// 0's address for other sites) and the run number.
TEST(Coallocator, SubmitOrdersCarryTheRunAndTheWorld) {
    Coallocator c;
    XJob job = two_parts("oregon:51", 2, 1);
    job.step_env = {{"SPIDERFLOW_TP", "8"}};
    c.submit(job, 0);
    c.step(0, kNoSilence);
    offer_and_reserve(c, "oregon:51", 100, 1, "10.0.0.7");
    const auto ohio = c.orders_for("ohio");
    ASSERT_EQ(ohio.size(), 1u);
    const Order& s = ohio[0];
    EXPECT_EQ(s.kind, OrderKind::Submit);
    EXPECT_EQ(s.world_size, 24);
    EXPECT_EQ(s.first_rank, 16);
    EXPECT_EQ(s.master_node, "10.0.0.7");
    EXPECT_EQ(s.master_port, c.find("oregon:51")->master_port);
    EXPECT_EQ(s.reservation, part_tag(*c.find("oregon:51"), 1));
    const auto attempt = std::find(s.step_env.begin(), s.step_env.end(),
                                   std::pair<std::string, std::string>{"SPIDERFLOW_ATTEMPT", "1"});
    EXPECT_NE(attempt, s.step_env.end());
}
