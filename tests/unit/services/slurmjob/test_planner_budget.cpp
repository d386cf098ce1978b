// Planning under job_submit's time budget (planner_budget.cpp): a plan, the user's error, or our
// fault when late; a late search keeps its thread until joined.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "common/model/catalog.h"
#include "common/planner/plan_compare.h"
#include "common/planner/request_builder.h"
#include "services/slurmjob/job_options.h"
#include "services/slurmjob/planner_budget.h"
#include "services/slurmjob/submit_planner.h"
#include "tests/unit/services/slurmjob/submit_fixture.h"

using namespace spiderflow;
using namespace spiderflow::slurmjob;
using namespace spiderflow::slurmjob::testing;

namespace {

PlanRequest request(const char* model, int batch, int gpus) {
    RequestOptions o;
    o.model = model;
    o.global_batch = batch;
    o.gpus = gpus;
    return build_plan_request(o, Catalog::builtin(), sbatch_option_names(), "test");
}

std::shared_ptr<const PlannerPolicy> spinsearch() { return make_planner("spinsearch"); }

}  // namespace

TEST(PlannerBudget, APlanWithinTheBudget) {
    const auto topo = cluster_topology(4);
    const PlanOutcome out = plan_with_budget(request("llama3-8b", 64, 16), spinsearch(), topo, 30);
    ASSERT_TRUE(out.ok) << out.message;
    EXPECT_FALSE(out.user_error);
    EXPECT_EQ(out.plan.world_size(), 16);
}

// A model no plan on these GPUs can hold is the user's to fix, and says why.
TEST(PlannerBudget, ARequestThatCannotBePlannedIsTheUsersError) {
    const auto topo = cluster_topology(1);
    const PlanOutcome out = plan_with_budget(request("llama3-405b", 64, 8), spinsearch(), topo, 30);
    EXPECT_FALSE(out.ok);
    EXPECT_TRUE(out.user_error);
    EXPECT_FALSE(out.message.empty());
}

// Past the budget: our fault (the job passes unplanned), and the search's thread is left to
// finish, counted until joined.
TEST(PlannerBudget, LateIsOurFaultAndTheThreadIsJoinedLater) {
    join_planner_threads();
    const auto topo = cluster_topology(4);
    const PlanOutcome out = plan_with_budget(request("llama3-70b", 1024, 32), spinsearch(), topo, 1e-9);
    EXPECT_FALSE(out.ok);
    EXPECT_FALSE(out.user_error);
    EXPECT_FALSE(out.message.empty());
    join_planner_threads();
    EXPECT_EQ(planner_threads_running(), 0);
}

TEST(PlannerBudget, AlternativesOnlyWhileTheBudgetLasts) {
    const auto topo = cluster_topology(4);
    const PlanRequest req = request("llama3-8b", 64, 16);
    const PlanOutcome chosen = plan_with_budget(req, spinsearch(), topo, 30);
    ASSERT_TRUE(chosen.ok) << chosen.message;
    const auto in_time = compare_with_budget(req, spinsearch(), topo, chosen.plan, 30);
    ASSERT_TRUE(in_time.has_value());
    EXPECT_FALSE(in_time->empty());
    // Out of budget: nothing (the thread was abandoned), or a comparison that planned nothing
    // more once its time was up (it stops at the budget too), so no verdict either way.
    const auto late = compare_with_budget(req, spinsearch(), topo, chosen.plan, 1e-9);
    EXPECT_TRUE(!late || faster_alternative(*late) == nullptr);
    join_planner_threads();
}
