// WAN sharing: jobs on one link slow each other as the flow simulator says; alone, not at all.
#include <gtest/gtest.h>

#include "common/cost/cost_model.h"
#include "services/fedsim/wan_sharing.h"
#include "common/planner/plan_job.h"
#include "tests/unit/services/fedsim/fed_fixture.h"

using namespace spiderflow;
using namespace spiderflow::fedsim;

namespace {

Plan cross_plan(const Topology& t) {
    PlanRequest r;
    r.job.model = *Catalog::builtin().model("llama3-8b");
    r.job.global_batch = 64;
    r.job.seq_len = 2048;
    r.job.gpus = 16;
    const CostModel cost(t, Catalog::builtin());
    return plan_job(*make_planner("spinsearch"), r, cost).plan;
}

TEST(WanSharing, TwoJobsOnOneLinkSlowEachOtherAndAloneNothingChanges) {
    const Topology t = fedtest::federation({"A", "B"}, 1, 10);   // 8 GPUs each: 16 must cross
    const Plan p = cross_plan(t);
    ASSERT_NE(p.cells.front().cluster, p.cells.back().cluster);
    WanSharing w(t, Catalog::builtin(), "fair");
    EXPECT_EQ(w.slowdowns({{"x", &p}}).at("x"), 1);
    EXPECT_EQ(w.simulations(), 0);                   // alone: nothing to simulate
    const auto both = w.slowdowns({{"x", &p}, {"y", &p}});
    EXPECT_GT(both.at("x"), 1.05);
    EXPECT_GT(both.at("y"), 1.05);
    EXPECT_LT(both.at("x"), 2.5);                    // two sharers cannot cost much more than 2x
    const long sims = w.simulations();
    w.slowdowns({{"x", &p}, {"y", &p}});
    EXPECT_EQ(w.simulations(), sims);                // the same group again comes from the cache
}

}  // namespace
