// Agents' reports: a refused reservation, a part that ends, a part whose script failed, a
// cluster that refuses; each ends or retries the whole job, saying which part and why.
#include <gtest/gtest.h>

#include "services/coalloc/coallocator.h"
#include "tests/unit/services/coalloc/coalloc_fixture.h"

using namespace spiderflow::coalloc;
using namespace spiderflow::coalloc::test;

TEST(Coallocator, ARefusedReservationReleasesTheOthersAndAsksForALaterStart) {
    Coallocator c;
    c.submit(two_parts("oregon:2"), 0);
    c.step(0, kNoSilence);
    for (size_t k = 0; k < 2; ++k) {
        Report o = rep(ReportKind::Offer, "oregon:2", k, 1);
        o.earliest_start = 100;
        c.report(k == 0 ? "oregon" : "ohio", o, 1);
    }
    Report ok = rep(ReportKind::Reserved, "oregon:2", 0, 1);
    ok.reservation = "spiderflow-oregon_2-a1-p0";
    ASSERT_TRUE(c.report("oregon", ok, 2));
    Report no = rep(ReportKind::ReserveFailed, "oregon:2", 1, 1);
    no.reason = "Requested nodes are busy";
    ASSERT_TRUE(c.report("ohio", no, 3));

    const XJob& j = *c.find("oregon:2");
    EXPECT_EQ(j.state, XJobState::Negotiating);
    EXPECT_EQ(j.attempt, 2);
    EXPECT_EQ(j.setback, "part 1 on ohio: Requested nodes are busy");
    EXPECT_TRUE(j.reason.empty());  // a setback is not a failure
    EXPECT_EQ(j.not_before, 160);
    auto orders = c.orders_for("oregon");
    ASSERT_EQ(orders.size(), 2u);
    EXPECT_EQ(orders[0].kind, OrderKind::WillRun);
    EXPECT_EQ(orders[0].not_before, 160);
    EXPECT_EQ(orders[1].kind, OrderKind::Release);
    EXPECT_EQ(orders[1].reservation, "spiderflow-oregon_2-a1-p0");

    // ohio made its reservation after all, answering the first attempt late: it must go too.
    Report late = rep(ReportKind::Reserved, "oregon:2", 1, 1);
    late.reservation = "spiderflow-oregon_2-a1-p1";
    ASSERT_TRUE(c.report("ohio", late, 4));
    orders = c.orders_for("ohio");
    ASSERT_EQ(orders.size(), 2u);
    EXPECT_EQ(orders[1].kind, OrderKind::Release);
    EXPECT_EQ(orders[1].reservation, "spiderflow-oregon_2-a1-p1");
    // ... and an offer for the first attempt changes nothing.
    Report stale = rep(ReportKind::Offer, "oregon:2", 1, 1);
    stale.earliest_start = 5;
    EXPECT_FALSE(c.report("ohio", stale, 5));

    Report released = rep(ReportKind::Released, "oregon:2", 0, 2);
    released.reservation = "spiderflow-oregon_2-a1-p0";
    ASSERT_TRUE(c.report("oregon", released, 6));
    EXPECT_EQ(c.orders_for("oregon").size(), 1u);
    EXPECT_FALSE(c.report("oregon", released, 7));  // once
}

TEST(Coallocator, OnePartFailingEndsEveryOtherAndSaysWhich) {
    Coallocator c;
    c.submit(two_parts("oregon:5"), 0);
    run_to_running(c, "oregon:5", 10);
    Report failed = rep(ReportKind::Ended, "oregon:5", 1, 1);
    failed.job_id = 101;
    failed.reason = "NODE_FAIL on oh-gpu001";
    ASSERT_TRUE(c.report("ohio", failed, 20));
    const XJob& j = *c.find("oregon:5");
    EXPECT_EQ(j.state, XJobState::Ending);
    // The same end once more (an agent that did not get the answer sends it again): taken, and
    // the history says it once.
    const size_t lines = j.events.size();
    EXPECT_TRUE(c.report("ohio", failed, 20));
    EXPECT_EQ(j.events.size(), lines) << j.events.back().text;
    auto orders = c.orders_for("oregon");
    ASSERT_EQ(orders.size(), 2u);
    EXPECT_EQ(orders[0].kind, OrderKind::Cancel);  // the job first ...
    EXPECT_EQ(orders[0].job_id, 100u);
    EXPECT_EQ(orders[0].reason, "part 1 on ohio ended: NODE_FAIL on oh-gpu001");
    EXPECT_EQ(orders[1].kind, OrderKind::Release);  // ... then its reservation
    Report gone = rep(ReportKind::Ended, "oregon:5", 0, 1);
    gone.job_id = 100;
    gone.reason = "cancelled";
    ASSERT_TRUE(c.report("oregon", gone, 21));
    EXPECT_EQ(j.state, XJobState::Failed);
    EXPECT_EQ(j.reason, "part 1 on ohio ended: NODE_FAIL on oh-gpu001");
}

// Ranks die together: ohio's part is cancelled by its site, and oregon's program fails a moment
// later because its peers' connections closed. Whichever agent reports first, the part Slurm
// ended is named as the cause, in the job's reason and in the order that ends oregon's part.
TEST(Coallocator, ThePartSlurmEndedIsTheCauseNotThePeerWhoseRanksDiedWithIt) {
    Coallocator c;
    c.submit(two_parts("oregon:15"), 0);
    run_to_running(c, "oregon:15", 10);
    const Report peer = ended("oregon:15", 0, 100, "FAILED, exit code 1", true);  // its batch step waits for the verdict
    ASSERT_TRUE(c.report("oregon", peer, 20));
    EXPECT_EQ(c.find("oregon:15")->reason, "part 0 on oregon ended: FAILED, exit code 1");
    ASSERT_TRUE(c.report("ohio", ended("oregon:15", 1, 101, "CANCELLED"), 21));
    const XJob& j = *c.find("oregon:15");
    EXPECT_EQ(j.reason, "part 1 on ohio ended: CANCELLED");
    auto orders = c.orders_for("oregon");
    ASSERT_FALSE(orders.empty());
    EXPECT_EQ(orders[0].kind, OrderKind::Cancel);  // oregon's part still runs: it is told why
    EXPECT_EQ(orders[0].job_id, 100u);
    EXPECT_EQ(orders[0].reason, "part 1 on ohio ended: CANCELLED");
    // The same failure reported again changes nothing; the cancel's report ends the job.
    EXPECT_TRUE(c.report("oregon", peer, 22));
    ASSERT_TRUE(c.report("oregon", ended("oregon:15", 0, 100, kCancelledByBroker + orders[0].reason), 23));
    EXPECT_EQ(j.state, XJobState::Failed);
    EXPECT_EQ(j.reason, "part 1 on ohio ended: CANCELLED");
}

// A part whose own script failed first is the cause; it is still ordered cancelled, so that its
// waiting batch step hears the verdict and ends. The other part's later end changes nothing.
TEST(Coallocator, AFailedScriptWaitingForTheVerdictIsEndedWithIt) {
    Coallocator c;
    c.submit(two_parts("oregon:16"), 0);
    run_to_running(c, "oregon:16", 10);
    ASSERT_TRUE(c.report("ohio", ended("oregon:16", 1, 101, "FAILED, exit code 3", true), 20));
    const XJob& j = *c.find("oregon:16");
    EXPECT_EQ(j.state, XJobState::Ending);
    auto ohio = c.orders_for("ohio");
    ASSERT_FALSE(ohio.empty());
    EXPECT_EQ(ohio[0].kind, OrderKind::Cancel);
    EXPECT_EQ(ohio[0].job_id, 101u);
    EXPECT_EQ(ohio[0].reason, "part 1 on ohio ended: FAILED, exit code 3");
    ASSERT_TRUE(c.report("oregon", ended("oregon:16", 0, 100, "FAILED, exit code 1"), 21));
    EXPECT_EQ(j.reason, "part 1 on ohio ended: FAILED, exit code 3");
    ASSERT_TRUE(c.report("ohio", ended("oregon:16", 1, 101, kCancelledByBroker + ohio[0].reason), 22));
    EXPECT_EQ(j.state, XJobState::Failed);
    EXPECT_EQ(j.reason, "part 1 on ohio ended: FAILED, exit code 3");
}

TEST(Coallocator, AClusterThatRefusesThePartFailsTheJobWithItsReason) {
    Coallocator c;
    c.submit(two_parts("oregon:12"), 0);
    c.step(0, kNoSilence);
    Report no = rep(ReportKind::Refused, "oregon:12", 1, 1);
    no.reason = "user 'alice' may not run parts on ohio";
    ASSERT_TRUE(c.report("ohio", no, 1));
    EXPECT_EQ(c.find("oregon:12")->state, XJobState::Failed);
    EXPECT_EQ(c.find("oregon:12")->reason, "part 1 on ohio refused: user 'alice' may not run parts on ohio");
}
