// The plan summary job_submit writes in a planned job's AdminComment (services/slurmjob/plan_summary.h):
// only our own summary parses, and what the agent appends for a cross-site part reads back.
#include <gtest/gtest.h>

#include <string>

#include "services/slurmjob/plan_summary.h"
#include "tests/unit/services/slurmjob/summary_fixture.h"

using namespace spiderflow::slurmjob;

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
    const std::string summary = format_plan_summary(test::alpha_beta_summary());
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
}
