// What time brings: the give-up bound, a later start when a reservation is missing, the
// completion grace, the start barrier and a silent cluster.
#include <gtest/gtest.h>

#include "services/coalloc/coallocator.h"
#include "tests/unit/services/coalloc/coalloc_fixture.h"

using namespace spiderflow::coalloc;
using namespace spiderflow::coalloc::test;

TEST(Coallocator, GivesUpWithTheLastReasonAfterTheBound) {
    Policy p;
    p.give_up_after_s = 600;
    Coallocator c(p);
    c.submit(two_parts("oregon:3"), 0);
    c.step(0, kNoSilence);
    Report o = rep(ReportKind::Offer, "oregon:3", 0, 1);
    o.earliest_start = 50;
    c.report("oregon", o, 1);
    c.step(600, kNoSilence);
    EXPECT_EQ(c.find("oregon:3")->state, XJobState::Negotiating);
    c.step(601, kNoSilence);
    const XJob& j = *c.find("oregon:3");
    EXPECT_EQ(j.state, XJobState::Failed);
    EXPECT_NE(j.reason.find("no common start found within 600 s"), std::string::npos) << j.reason;
    EXPECT_TRUE(c.orders_for("ohio").empty());
}

TEST(Coallocator, WaitingInTheQueueDoesNotCountTowardsGivingUp) {
    Policy p;
    p.give_up_after_s = 600;
    Coallocator c(p);
    c.submit(two_parts("oregon:20"), 0);
    c.submit(two_parts("oregon:21"), 0);
    c.step(0, kNoSilence);
    EXPECT_EQ(c.find("oregon:21")->state, XJobState::Queued);  // behind oregon:20
    c.cancel("oregon:20", "done with it", 5000);
    c.step(5000, kNoSilence);
    EXPECT_EQ(c.find("oregon:21")->state, XJobState::Negotiating);
    c.step(5600, kNoSilence);
    EXPECT_EQ(c.find("oregon:21")->state, XJobState::Negotiating);
    c.step(5601, kNoSilence);
    EXPECT_EQ(c.find("oregon:21")->state, XJobState::Failed);
}

TEST(Coallocator, AReservationMissingAtTheStartTriesALaterOne) {
    Coallocator c;
    c.submit(two_parts("oregon:4"), 0);
    c.step(0, kNoSilence);
    for (size_t k = 0; k < 2; ++k) {
        Report o = rep(ReportKind::Offer, "oregon:4", k, 1);
        o.earliest_start = 100;
        c.report(k == 0 ? "oregon" : "ohio", o, 1);
    }
    c.step(99, kNoSilence);
    EXPECT_EQ(c.find("oregon:4")->state, XJobState::Reserving);
    c.step(100, kNoSilence);
    EXPECT_EQ(c.find("oregon:4")->state, XJobState::Negotiating);
    EXPECT_EQ(c.find("oregon:4")->not_before, 160);
}

// A part whose script completed while the other part still runs: the other's ranks wait on peers
// that are gone. After completion_grace the other part is ended and the job fails, saying so;
// both parts completing within it is a completed job.
TEST(Coallocator, APartCompletedWhileTheOthersRunEndsThemAfterTheGrace) {
    Policy policy;
    policy.completion_grace_s = 600;
    Coallocator c(policy);
    c.submit(two_parts("oregon:17"), 0);
    run_to_running(c, "oregon:17", 10);
    Report done = ended("oregon:17", 0, 100, "COMPLETED");
    done.completed = true;
    ASSERT_TRUE(c.report("oregon", done, 100));
    c.step(699, kNoSilence);
    const XJob& j = *c.find("oregon:17");
    EXPECT_EQ(j.state, XJobState::Running);
    c.step(700, kNoSilence);
    EXPECT_EQ(j.state, XJobState::Ending);
    EXPECT_EQ(j.reason, "part 0 on oregon completed 600 s ago while the other parts still ran (their ranks wait on peers that are gone)");
    const auto ohio = c.orders_for("ohio");
    ASSERT_FALSE(ohio.empty());
    EXPECT_EQ(ohio[0].kind, OrderKind::Cancel);
    EXPECT_TRUE(c.orders_for("oregon").empty() || c.orders_for("oregon")[0].kind != OrderKind::Cancel);

    Coallocator both(policy);
    both.submit(two_parts("oregon:18"), 800);
    run_to_running(both, "oregon:18", 810);
    for (size_t k = 0; k < 2; ++k) {
        Report r = ended("oregon:18", k, static_cast<uint32_t>(100 + k), "COMPLETED");
        r.completed = true;
        ASSERT_TRUE(both.report(k == 0 ? "oregon" : "ohio", r, 900 + static_cast<int64_t>(k) * 300));
        both.step(900 + static_cast<int64_t>(k) * 300, kNoSilence);
    }
    both.step(2000, kNoSilence);
    EXPECT_EQ(both.find("oregon:18")->state, XJobState::Completed);
}

TEST(Coallocator, AMissedStartBarrierEndsEveryPartAndQueuesTheJobAgain) {
    Policy p;
    p.barrier_s = 60;
    p.max_requeues = 1;
    Coallocator c(p);
    c.submit(two_parts("oregon:6"), 0);
    c.step(0, kNoSilence);
    offer_and_reserve(c, "oregon:6", 100, 1);
    Report running = rep(ReportKind::Running, "oregon:6", 0, 1);
    running.job_id = 5;
    c.report("oregon", running, 100);
    Report submitted = rep(ReportKind::Submitted, "oregon:6", 1, 1);
    submitted.job_id = 6;
    c.report("ohio", submitted, 100);
    c.step(160, kNoSilence);
    EXPECT_EQ(c.find("oregon:6")->state, XJobState::Starting);
    c.step(161, kNoSilence);
    const XJob& j = *c.find("oregon:6");
    EXPECT_EQ(j.state, XJobState::Ending);
    EXPECT_EQ(j.reason, "part 1 on ohio not running within 60 s of the common start");
    EXPECT_EQ(c.orders_for("ohio")[0].kind, OrderKind::Cancel);
    for (size_t k = 0; k < 2; ++k) {
        Report e = rep(ReportKind::Ended, "oregon:6", k, 1);
        e.job_id = static_cast<uint32_t>(5 + k);
        c.report(k == 0 ? "oregon" : "ohio", e, 170);
    }
    EXPECT_EQ(j.state, XJobState::Queued);
    EXPECT_EQ(j.requeues, 1);
    EXPECT_TRUE(j.reason.empty());  // the next attempt may still complete
    c.step(171, kNoSilence);
    EXPECT_EQ(j.state, XJobState::Negotiating);
    EXPECT_EQ(j.attempt, 2);
}

TEST(Coallocator, ASilentClusterEndsTheOtherPartsAndIsCancelledWhenItIsBack) {
    Policy p;
    p.silent_after_s = 100;
    Coallocator c(p);
    c.submit(two_parts("oregon:8"), 0);
    run_to_running(c, "oregon:8", 10);
    c.step(200, {{"oregon", 199}, {"ohio", 100}});
    EXPECT_EQ(c.find("oregon:8")->state, XJobState::Running);
    c.step(201, {{"oregon", 200}, {"ohio", 100}});
    const XJob& j = *c.find("oregon:8");
    EXPECT_EQ(j.state, XJobState::Ending);
    EXPECT_EQ(j.reason, "ohio not heard from for over 100 s");
    Report e = rep(ReportKind::Ended, "oregon:8", 0, 1);
    e.job_id = 100;
    c.report("oregon", e, 202);
    c.step(203, {{"oregon", 203}, {"ohio", 100}});
    EXPECT_EQ(j.state, XJobState::Failed);
    // ohio comes back: it is still told to end its part, until it says it did.
    auto orders = c.orders_for("ohio");
    ASSERT_EQ(orders.size(), 2u);
    EXPECT_EQ(orders[0].kind, OrderKind::Cancel);
    EXPECT_EQ(orders[0].job_id, 101u);
    EXPECT_EQ(orders[1].kind, OrderKind::Release);
    Report back = rep(ReportKind::Ended, "oregon:8", 1, 1);
    back.job_id = 101;
    ASSERT_TRUE(c.report("ohio", back, 500));
    orders = c.orders_for("ohio");
    ASSERT_EQ(orders.size(), 1u);
    EXPECT_EQ(orders[0].kind, OrderKind::Release);
    c.forget_finished(1000 + Policy{}.keep_finished_s);
    EXPECT_NE(c.find("oregon:8"), nullptr);  // not while a reservation is left behind
    Report released = rep(ReportKind::Released, "oregon:8", 1, 1);
    released.reservation = orders[0].reservation;
    ASSERT_TRUE(c.report("ohio", released, 501));
    released.part = 0;
    released.reservation = part_tag(j, 0);
    ASSERT_TRUE(c.report("oregon", released, 501));
    c.forget_finished(1000 + Policy{}.keep_finished_s);
    EXPECT_EQ(c.find("oregon:8"), nullptr);
}

TEST(Coallocator, KeepsTheNewestFinishedJobsUpToTheCount) {
    Policy p;
    p.keep_finished = 2;
    Coallocator c(p);
    for (int k = 0; k < 5; ++k) c.submit(two_parts("oregon:" + std::to_string(30 + k)), 0);
    c.step(0, kNoSilence);
    for (int k = 0; k < 4; ++k) ASSERT_TRUE(c.cancel("oregon:" + std::to_string(30 + k), "done with it", 10 * (k + 1)));
    EXPECT_EQ(c.forget_finished(50), (std::vector<std::string>{"oregon:31", "oregon:30"}));  // what the store drops
    EXPECT_EQ(c.find("oregon:30"), nullptr);   // the oldest two ends are forgotten
    EXPECT_EQ(c.find("oregon:31"), nullptr);
    EXPECT_NE(c.find("oregon:32"), nullptr);
    EXPECT_NE(c.find("oregon:33"), nullptr);
    EXPECT_NE(c.find("oregon:34"), nullptr);   // not finished: never counted
    c.forget_finished(35 + p.keep_finished_s);  // a day after oregon:32 ended (at 30)
    EXPECT_EQ(c.find("oregon:32"), nullptr);
    EXPECT_NE(c.find("oregon:33"), nullptr);   // ended at 40: not yet a day ago
    EXPECT_NE(c.find("oregon:34"), nullptr);
}
