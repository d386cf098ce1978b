// DeadlinePlanner: answers within the budget, keeps a late search on an owned thread, joins it.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/planner/deadline_planning.h"
#include "common/util/errors.h"

using namespace spiderflow;
using namespace std::chrono_literals;

TEST(DeadlinePlanning, MapsOutcomes) {
    DeadlinePlanner d;
    EXPECT_EQ(d.plan([] { return PlanResult{}; }, 5).kind, DeadlineOutcome::Kind::planned);
    EXPECT_EQ(d.plan([]() -> PlanResult { throw InfeasibleError("too big"); }, 5).kind, DeadlineOutcome::Kind::infeasible);
    EXPECT_EQ(d.plan([]() -> PlanResult { throw InputError("spec", 0, "gpus", "bad"); }, 5).kind,
              DeadlineOutcome::Kind::bad_input);
    const auto failed = d.plan([]() -> PlanResult { throw std::runtime_error("boom"); }, 5);
    EXPECT_EQ(failed.kind, DeadlineOutcome::Kind::failed);
    EXPECT_NE(failed.message.find("boom"), std::string::npos);
}

TEST(DeadlinePlanning, ALateSearchIsAbandonedThenJoinedNotDetached) {
    DeadlinePlanner d;
    auto finished = std::make_shared<std::atomic<bool>>(false);
    const auto t0 = std::chrono::steady_clock::now();
    const auto late = d.plan(
        [finished] {
            std::this_thread::sleep_for(600ms);
            finished->store(true);
            return PlanResult{};
        },
        0.05);
    EXPECT_EQ(late.kind, DeadlineOutcome::Kind::late);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 500ms) << "the caller got its answer at the budget";
    EXPECT_EQ(d.running(), 1);
    d.join_all();
    EXPECT_TRUE(finished->load()) << "join_all waited for the search";
    EXPECT_EQ(d.running(), 0);
    d.join_all();  // twice is fine
}
