// The plan summary job_submit writes in a planned job's AdminComment (services/slurmjob/plan_summary.h):
// built from a plan, only our own summary parses, and what the agent appends for a cross-site
// part reads back.
#include <gtest/gtest.h>

#include <algorithm>

#include <string>

#include "common/plan/plan.h"
#include "services/slurmjob/plan_summary.h"
#include "tests/unit/common/plan/plan_fixture.h"
#include "tests/unit/services/slurmjob/summary_fixture.h"

using namespace spiderflow;
using namespace spiderflow::slurmjob;

TEST(PlanSummary, BuiltFromAPlanItReadsBack) {
    const Plan plan = spiderflow::test::cross_plan();
    const PlanSummary s = plan_summary_of(plan, 2, 8, "eJxLyclXKM8vykkBAB2BBF0=");
    EXPECT_EQ(s.model, "test-1b");
    EXPECT_EQ(s.nodes, 2);
    EXPECT_EQ(s.gpus_per_node, 8);
    EXPECT_TRUE(s.parts.empty() && s.clusters.empty() && s.xjob.empty()) << "the cross-site words are the caller's";
    const std::string text = format_plan_summary(s);
    EXPECT_EQ(text, "spiderflow plan model=test-1b tp=4 pp=2 dp=4 mb=2 nodes=2x8 iter_s=1.25 plan=eJxLyclXKM8vykkBAB2BBF0=");
    PlanSummary back;
    ASSERT_TRUE(parse_plan_summary(text, &back));
    EXPECT_EQ(back.plan_data, s.plan_data);
    EXPECT_DOUBLE_EQ(back.iteration_s, 1.25);
}

TEST(PlanSummary, APlanTooLargeForAnAdminCommentIsLeftOut) {
    const Plan plan = spiderflow::test::cross_plan();
    EXPECT_EQ(plan_summary_of(plan, 2, 8, std::string(kMaxSummaryPlanBytes, 'A')).plan_data.size(), kMaxSummaryPlanBytes);
    EXPECT_TRUE(plan_summary_of(plan, 2, 8, std::string(kMaxSummaryPlanBytes + 1, 'A')).plan_data.empty());
    EXPECT_TRUE(plan_summary_of(plan, 2, 8).plan_data.empty());
}

TEST(PlanSummary, OnlyOurOwnSummaryParses) {
    const std::string text = "spiderflow plan model=llama3-8b tp=2 pp=4 dp=8 mb=1 nodes=8x8 iter_s=1.25";
    PlanSummary back;
    ASSERT_TRUE(parse_plan_summary(text, &back));
    EXPECT_EQ(back.nodes, 8);
    EXPECT_EQ(format_plan_summary(back), text);
    EXPECT_EQ(back.dp, 8);
    EXPECT_EQ(summary_step_env(back).size(), 4u) << "no plan data, no SPIDERFLOW_PLAN_DATA";
    EXPECT_FALSE(parse_plan_summary("requeued by admin", &back));
    EXPECT_FALSE(parse_plan_summary("spiderflow plan model=x tp=0 pp=1 dp=1 mb=1 nodes=1x8", &back));
    EXPECT_FALSE(parse_plan_summary("spiderflow plan model=x tp=2 pp=1 dp=1 mb=1 nodes=8", &back));
}

TEST(PlanSummary, CrossSitePartsAndTheRendezvousRoundTrip) {
    const std::string summary = format_plan_summary(slurmjob::test::alpha_beta_summary());
    std::string text = summary + format_rendezvous("alpha:77", 1, 16, 24, "10.0.0.5", 29577);
    PlanSummary s;
    ASSERT_TRUE(parse_plan_summary(text, &s));
    EXPECT_EQ(s.parts.size(), 2u);
    EXPECT_EQ(s.xjob, "alpha:77");
    EXPECT_EQ(s.xjob_part, 1);
    EXPECT_EQ(s.rank_base, 16);
    EXPECT_EQ(s.world, 24);
    EXPECT_EQ(s.master_addr, "10.0.0.5");
    EXPECT_EQ(s.master_port, 29577);
    EXPECT_FALSE(parse_plan_summary(summary + " xparts=alpha:2x8", &s));
    EXPECT_FALSE(parse_plan_summary(summary + " xjob=a master=nohost", &s));
    // The home part runs only in the first run: its steps get SPIDERFLOW_ATTEMPT=1.
    ASSERT_TRUE(parse_plan_summary(text, &s));
    const auto env = summary_step_env(s);
    EXPECT_NE(std::find(env.begin(), env.end(), std::pair<std::string, std::string>{"SPIDERFLOW_ATTEMPT", "1"}), env.end());
    // A job's choice should a part fail travels with it.
    PlanSummary choice = slurmjob::test::alpha_beta_summary();
    choice.failure_requeues = 3;
    choice.replan_any = true;
    ASSERT_TRUE(parse_plan_summary(format_plan_summary(choice), &s));
    EXPECT_EQ(s.failure_requeues, 3);
    EXPECT_TRUE(s.replan_any);
    EXPECT_FALSE(parse_plan_summary(format_plan_summary(choice) + " requeues=x", &s));
}
