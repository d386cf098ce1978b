// The co-allocator's decisions, driven by hand-made agent reports and a clock passed in.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "services/coalloc/coallocator.h"
#include "services/coalloc/stand_in_cluster.h"

using namespace spiderflow::coalloc;

namespace {

XJob two_parts(const std::string& id, int nodes_a = 2, int nodes_b = 1) {
    XJob j;
    j.id = id;
    j.user = "alice";
    j.account = "ml";
    j.home = "oregon";
    j.time_limit_s = 3600;
    j.script = "#!/bin/sh\nsrun train.sh\n";
    j.parts.push_back(Part{PartSpec{"oregon", nodes_a, 8, nodes_a * 8}});
    j.parts.push_back(Part{PartSpec{"ohio", nodes_b, 8, nodes_b * 8}});
    return j;
}

Report rep(ReportKind kind, const std::string& xjob, size_t part, int attempt) {
    Report r;
    r.kind = kind;
    r.xjob = xjob;
    r.part = part;
    r.attempt = attempt;
    return r;
}

const std::map<std::string, int64_t> kNoSilence;

// Offers both parts, reserves both, submits and runs both: the job at Running.
void run_to_running(Coallocator& c, const std::string& id, int64_t now) {
    c.step(now, kNoSilence);
    const int a = c.find(id)->attempt;
    Report o = rep(ReportKind::Offer, id, 0, a);
    o.earliest_start = now;
    ASSERT_TRUE(c.report("oregon", o, now));
    o.part = 1;
    ASSERT_TRUE(c.report("ohio", o, now));
    for (size_t k = 0; k < 2; ++k) {
        Report r = rep(ReportKind::Reserved, id, k, a);
        r.reservation = part_tag(*c.find(id), k);
        r.nodes = {k == 0 ? "or-gpu001" : "oh-gpu001"};
        ASSERT_TRUE(c.report(k == 0 ? "oregon" : "ohio", r, now));
    }
    for (size_t k = 0; k < 2; ++k) {
        Report r = rep(ReportKind::Running, id, k, a);
        r.job_id = static_cast<uint32_t>(100 + k);
        ASSERT_TRUE(c.report(k == 0 ? "oregon" : "ohio", r, now));
    }
    ASSERT_EQ(c.find(id)->state, XJobState::Running);
}

// Both parts of a two_parts() job offer `start` at `now` and reserve node "n" a second later
// (part 0 at `address`, when given, for the other sites): the job is starting.
void offer_and_reserve(Coallocator& c, const std::string& id, int64_t start, int64_t now, const std::string& address = "") {
    for (size_t k = 0; k < 2; ++k) {
        Report o = rep(ReportKind::Offer, id, k, 1);
        o.earliest_start = start;
        c.report(k == 0 ? "oregon" : "ohio", o, now);
    }
    for (size_t k = 0; k < 2; ++k) {
        Report r = rep(ReportKind::Reserved, id, k, 1);
        r.reservation = part_tag(*c.find(id), k);
        r.nodes = {"n"};
        if (k == 0) r.address = address;
        c.report(k == 0 ? "oregon" : "ohio", r, now + 1);
    }
}

// An agent's Ended report for a part's Slurm job.
Report ended(const std::string& xjob, size_t part, uint32_t job_id, const std::string& reason, bool still_running = false) {
    Report r = rep(ReportKind::Ended, xjob, part, 1);
    r.job_id = job_id;
    r.reason = reason;
    r.still_running = still_running;
    return r;
}

}  // namespace

TEST(Coallocator, StartsEveryPartAtTheLatestOfferAndFormsOneWorld) {
    Coallocator c;
    c.submit(two_parts("oregon:7"), 1000);
    EXPECT_EQ(c.find("oregon:7")->state, XJobState::Queued);
    EXPECT_EQ(c.step(1000, kNoSilence), std::vector<std::string>{"oregon:7"});
    const XJob& j = *c.find("oregon:7");
    EXPECT_EQ(j.state, XJobState::Negotiating);
    EXPECT_EQ(j.attempt, 1);

    auto orders = c.orders_for("ohio");
    ASSERT_EQ(orders.size(), 1u);
    EXPECT_EQ(orders[0].kind, OrderKind::WillRun);
    EXPECT_EQ(orders[0].nodes, 1);
    EXPECT_EQ(orders[0].user, "alice");
    EXPECT_EQ(orders[0].not_before, 1000);

    Report offer = rep(ReportKind::Offer, "oregon:7", 0, 1);
    offer.earliest_start = 1200;
    ASSERT_TRUE(c.report("oregon", offer, 1001));
    EXPECT_EQ(j.state, XJobState::Negotiating);
    EXPECT_TRUE(c.orders_for("oregon").empty());  // answered: nothing more to ask
    offer.part = 1;
    offer.earliest_start = 1500;
    ASSERT_TRUE(c.report("ohio", offer, 1002));
    EXPECT_EQ(j.state, XJobState::Reserving);
    EXPECT_EQ(j.start_at, 1500);

    orders = c.orders_for("oregon");
    ASSERT_EQ(orders.size(), 1u);
    EXPECT_EQ(orders[0].kind, OrderKind::Reserve);
    EXPECT_EQ(orders[0].start_at, 1500);
    EXPECT_EQ(orders[0].duration_s, 3600);
    EXPECT_EQ(orders[0].reservation, "spiderflow-oregon_7-a1-p0");

    Report reserved = rep(ReportKind::Reserved, "oregon:7", 0, 1);
    reserved.reservation = "spiderflow-oregon_7-a1-p0";
    reserved.nodes = {"or-gpu003", "or-gpu004"};
    ASSERT_TRUE(c.report("oregon", reserved, 1003));
    reserved.part = 1;
    reserved.reservation = "spiderflow-oregon_7-a1-p1";
    reserved.nodes = {"oh-gpu002"};
    ASSERT_TRUE(c.report("ohio", reserved, 1004));
    EXPECT_EQ(j.state, XJobState::Starting);

    orders = c.orders_for("ohio");
    ASSERT_EQ(orders.size(), 1u);
    EXPECT_EQ(orders[0].kind, OrderKind::Submit);
    EXPECT_EQ(orders[0].reservation, "spiderflow-oregon_7-a1-p1");
    EXPECT_EQ(orders[0].world_size, 24);
    EXPECT_EQ(orders[0].first_rank, 16);
    EXPECT_EQ(orders[0].master_node, "or-gpu003");
    EXPECT_EQ(orders[0].master_port, 28501);  // the first job to arrive
    EXPECT_EQ(c.orders_for("oregon")[0].master_port, 28501);
    EXPECT_EQ(c.orders_for("oregon")[0].first_rank, 0);
    EXPECT_EQ(rendezvous(j), "or-gpu003:28501");  // what `spiderflow jobs` shows

    // Other sites reach part 0's node at the address its agent gave: MASTER_ADDR everywhere.
    {
        Coallocator c2;
        c2.submit(two_parts("oregon:8"), 1000);
        c2.step(1000, kNoSilence);
        offer_and_reserve(c2, "oregon:8", 1100, 1001, "or-gpu001.wan.example.org");
        EXPECT_EQ(c2.orders_for("ohio")[0].master_node, "or-gpu001.wan.example.org");
    }

    Report running = rep(ReportKind::Running, "oregon:7", 0, 1);
    running.job_id = 41;
    ASSERT_TRUE(c.report("oregon", running, 1500));
    EXPECT_EQ(j.state, XJobState::Starting);
    running.part = 1;
    running.job_id = 9;
    ASSERT_TRUE(c.report("ohio", running, 1501));
    EXPECT_EQ(j.state, XJobState::Running);
    EXPECT_TRUE(c.orders_for("oregon").empty());

    Report done = rep(ReportKind::Ended, "oregon:7", 0, 1);
    done.job_id = 41;
    done.completed = true;
    ASSERT_TRUE(c.report("oregon", done, 5000));
    EXPECT_EQ(j.state, XJobState::Running);  // a part that finished its work ends nothing else
    done.part = 1;
    done.job_id = 9;
    ASSERT_TRUE(c.report("ohio", done, 5001));
    EXPECT_EQ(j.state, XJobState::Completed);
    EXPECT_TRUE(j.reason.empty());
    // Its reservations go at once rather than holding the nodes until they end.
    orders = c.orders_for("ohio");
    ASSERT_EQ(orders.size(), 1u);
    EXPECT_EQ(orders[0].kind, OrderKind::Release);
    EXPECT_EQ(orders[0].reservation, "spiderflow-oregon_7-a1-p1");
}

TEST(Coallocator, NeverStartsBeforeTheLeadTime) {
    Coallocator c(Policy{});
    c.submit(two_parts("oregon:1"), 100);
    c.step(100, kNoSilence);
    for (size_t k = 0; k < 2; ++k) {
        Report o = rep(ReportKind::Offer, "oregon:1", k, 1);
        o.earliest_start = 90;  // "now" on both clusters
        ASSERT_TRUE(c.report(k == 0 ? "oregon" : "ohio", o, 100));
    }
    EXPECT_EQ(c.find("oregon:1")->start_at, 130);  // 30 s to make the reservations
}

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
    c.forget_finished(1000);
    EXPECT_NE(c.find("oregon:8"), nullptr);  // not while a reservation is left behind
    Report released = rep(ReportKind::Released, "oregon:8", 1, 1);
    released.reservation = orders[0].reservation;
    ASSERT_TRUE(c.report("ohio", released, 501));
    released.part = 0;
    released.reservation = part_tag(j, 0);
    ASSERT_TRUE(c.report("oregon", released, 501));
    c.forget_finished(1000);
    EXPECT_EQ(c.find("oregon:8"), nullptr);
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

TEST(Coallocator, CancelBeforeAnyPartRunsEndsAtOnce) {
    Coallocator c;
    c.submit(two_parts("oregon:9"), 0);
    c.step(0, kNoSilence);
    ASSERT_TRUE(c.cancel("oregon:9", "scancel of oregon job 9", 5));
    EXPECT_EQ(c.find("oregon:9")->state, XJobState::Failed);
    EXPECT_EQ(c.find("oregon:9")->reason, "cancelled: scancel of oregon job 9");
    EXPECT_FALSE(c.cancel("oregon:9", "again", 6));
    EXPECT_FALSE(c.cancel("nope", "x", 6));
}

TEST(Coallocator, RefusesMalformedJobsAndReportsFromTheWrongCluster) {
    Coallocator c;
    XJob one = two_parts("a:1");
    one.parts.pop_back();
    EXPECT_THROW(c.submit(one, 0), std::invalid_argument);
    XJob twice = two_parts("a:2");
    twice.parts[1].spec.cluster = "oregon";
    EXPECT_THROW(c.submit(twice, 0), std::invalid_argument);
    XJob no_script = two_parts("a:6");
    no_script.script = "srun train.sh";
    EXPECT_THROW(c.submit(no_script, 0), std::invalid_argument);
    XJob no_limit = two_parts("a:3");
    no_limit.time_limit_s = 0;
    EXPECT_THROW(c.submit(no_limit, 0), std::invalid_argument);
    c.submit(two_parts("a:4"), 0);
    EXPECT_THROW(c.submit(two_parts("a:4"), 0), std::invalid_argument);
    c.step(0, kNoSilence);
    Report o = rep(ReportKind::Offer, "a:4", 0, 1);
    o.earliest_start = 10;
    EXPECT_FALSE(c.report("ohio", o, 1));   // part 0 is oregon's
    o.part = 5;
    EXPECT_FALSE(c.report("oregon", o, 1));  // no such part
    o.part = 0;
    o.xjob = "a:5";
    EXPECT_FALSE(c.report("oregon", o, 1));  // no such job
}

// Two jobs that each need most of both clusters. Each cluster is a tiny scheduler: a
// reservation holds its nodes from its start for the time limit, and its will-run answer is the
// earliest time enough nodes are free after `not_before`. The later job waits for the earlier
// one's reservations, then steps around them: both run, one after the other.
TEST(Coallocator, TwoCompetingJobsBothRunNeitherHoldsAndWaits) {
    std::vector<StandInCluster> clusters = {StandInCluster("oregon", 4, 10), StandInCluster("ohio", 4, 10)};
    Coallocator c;
    c.submit(two_parts("oregon:10", 3, 3), 0);
    c.submit(two_parts("ohio:11", 3, 3), 0);
    auto both_done = [&] { return finished(c.find("oregon:10")->state) && finished(c.find("ohio:11")->state); };
    for (int64_t now = 0; now < 20000 && !both_done(); now += 5) {
        c.step(now, kNoSilence);
        for (StandInCluster& cl : clusters) {
            for (const Order& o : c.orders_for(cl.name())) {
                if (auto r = cl.answer(o, now, static_cast<uint32_t>(now))) c.report(cl.name(), *r, now);
            }
            // A running job finishes its work 3000 s after its start.
            for (const Report& e : cl.parts_done(c.jobs(), now, 3000)) c.report(cl.name(), e, now);
            cl.expire(now);
        }
    }
    ASSERT_EQ(c.find("oregon:10")->state, XJobState::Completed);
    ASSERT_EQ(c.find("ohio:11")->state, XJobState::Completed);
    EXPECT_EQ(c.find("oregon:10")->attempt, 1);
    EXPECT_EQ(c.find("ohio:11")->attempt, 1);  // it waited its turn rather than colliding
    EXPECT_GE(c.find("ohio:11")->start_at, c.find("oregon:10")->start_at + 3600);
}

TEST(Coallocator, RestoredJobsKeepTheirOrder) {
    Coallocator first;
    first.submit(two_parts("oregon:1"), 0);
    first.submit(two_parts("oregon:2"), 0);
    Coallocator again;
    for (const auto& [id, job] : first.jobs()) again.restore(job);
    again.submit(two_parts("oregon:3"), 1);
    EXPECT_EQ(again.find("oregon:3")->seq, 3u);
    again.step(1, kNoSilence);
    EXPECT_EQ(again.find("oregon:1")->state, XJobState::Negotiating);
    EXPECT_EQ(again.find("oregon:2")->state, XJobState::Queued);
}

TEST(Coallocator, JobsOnSeparateClustersNegotiateAtOnce) {
    Coallocator c;
    c.submit(two_parts("oregon:1"), 0);
    XJob other = two_parts("tokyo:2");
    other.parts[0].spec.cluster = "tokyo";
    other.parts[1].spec.cluster = "sydney";
    c.submit(other, 0);
    c.step(0, kNoSilence);
    EXPECT_EQ(c.find("tokyo:2")->state, XJobState::Negotiating);
}

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

TEST(Coallocator, AHeldJobNeedsAPartOnItsHomeCluster) {
    Coallocator c;
    XJob job = two_parts("texas:46");
    job.home = "texas";
    job.home_job = 46;
    EXPECT_THROW(c.submit(job, 0), std::invalid_argument);
}

namespace {

// A two_parts() job that asks to be requeued after a failure, planned with tp=2 pp=2 dp=4.
XJob requeued_job(const std::string& id, int requeues) {
    XJob j = two_parts(id);
    j.on_failure.requeues = requeues;
    j.step_env = {{"SPIDERFLOW_TP", "2"}, {"SPIDERFLOW_PP", "2"}, {"SPIDERFLOW_DP", "4"}};
    return j;
}

// Reports of a running job's parts as their agents would send them when ohio's node is lost:
// ohio's part NODE_FAIL, then oregon's part ended on the broker's order.
void lose_ohio_node(Coallocator& c, const std::string& id, int64_t now) {
    const int a = c.find(id)->attempt;
    Report lost = ended(id, 1, c.find(id)->parts[1].job_id, "NODE_FAIL");
    lost.attempt = a;
    ASSERT_TRUE(c.report("ohio", lost, now));
    Report gone = ended(id, 0, c.find(id)->parts[0].job_id, std::string(kCancelledByBroker) + "part 1 lost");
    gone.attempt = a;
    ASSERT_TRUE(c.report("oregon", gone, now + 1));
}

}  // namespace

// --llm-on-failure=requeue: a lost node ends every part, and the job goes back to the queue as
// one job; once the failed site had time to say what it lost, it is planned anew without that
// node, and every part of the new run gets SPIDERFLOW_ATTEMPT=2 and the previous layout.
TEST(Coallocator, AFailedPartQueuesTheJobAgainPlannedAnewWithoutWhatFailed) {
    Policy p;
    p.replan_settle_s = 30;
    Coallocator c(p);
    std::vector<std::string> seen_lost;
    c.set_replanner([&](XJob& job) {
        seen_lost = job.lost_nodes;
        job.parts = {Part{PartSpec{"oregon", 2, 8, 16}}, Part{PartSpec{"texas", 1, 8, 8}}};
        job.step_env = {{"SPIDERFLOW_TP", "2"}, {"SPIDERFLOW_PP", "2"}, {"SPIDERFLOW_DP", "6"}};
        return std::string();
    });
    c.submit(requeued_job("oregon:60", 2), 0);
    run_to_running(c, "oregon:60", 10);
    lose_ohio_node(c, "oregon:60", 100);
    const XJob& j = *c.find("oregon:60");
    ASSERT_EQ(j.state, XJobState::Queued);
    EXPECT_EQ(j.failure_requeues, 1);
    EXPECT_EQ(run_number(j), 2);
    EXPECT_EQ(j.lost_nodes, std::vector<std::string>{"ohio:oh-gpu001"});
    ASSERT_EQ(j.runs.size(), 1u);
    EXPECT_EQ(j.runs[0].layout, "tp=2 pp=2 dp=4");
    EXPECT_EQ(j.runs[0].placement, "oregon:2x8,ohio:1x8");
    EXPECT_EQ(j.runs[0].ended_at, 101);
    EXPECT_EQ(j.runs[0].end, "part 1 on ohio ended: NODE_FAIL");
    // Waits for the settle time before planning anew; the old reservations go meanwhile.
    c.step(120, kNoSilence);
    EXPECT_EQ(j.state, XJobState::Queued);
    EXPECT_TRUE(seen_lost.empty());
    c.step(131, kNoSilence);
    ASSERT_EQ(j.state, XJobState::Negotiating);
    EXPECT_EQ(seen_lost, std::vector<std::string>{"ohio:oh-gpu001"});
    ASSERT_EQ(j.parts.size(), 2u);
    EXPECT_EQ(j.parts[1].spec.cluster, "texas");
    // ohio's reservation of the first run is still to be released: ordered as a retired part.
    const auto ohio = c.orders_for("ohio");
    ASSERT_EQ(ohio.size(), 1u);
    EXPECT_EQ(ohio[0].kind, OrderKind::Release);
    EXPECT_GE(ohio[0].part, j.parts.size());  // numbered after the new run's parts
    Report released = rep(ReportKind::Released, "oregon:60", ohio[0].part, j.attempt);
    released.reservation = ohio[0].reservation;
    ASSERT_TRUE(c.report("ohio", released, 132));
    EXPECT_TRUE(c.orders_for("ohio").empty());
    // The new run starts with its number and the previous layout in every part.
    const int a = j.attempt;
    for (size_t k = 0; k < 2; ++k) {
        Report o = rep(ReportKind::Offer, "oregon:60", k, a);
        o.earliest_start = 140;
        ASSERT_TRUE(c.report(j.parts[k].spec.cluster, o, 132));
    }
    for (size_t k = 0; k < 2; ++k) {
        Report r = rep(ReportKind::Reserved, "oregon:60", k, a);
        r.reservation = part_tag(j, k);
        r.nodes = {"n"};
        ASSERT_TRUE(c.report(j.parts[k].spec.cluster, r, 133));
    }
    const auto texas = c.orders_for("texas");
    ASSERT_EQ(j.state, XJobState::Starting) << j.events.back().text;
    ASSERT_EQ(texas.size(), 1u);
    ASSERT_EQ(texas[0].kind, OrderKind::Submit);
    EXPECT_EQ(texas[0].held_job, 0u);
    const auto& env = texas[0].step_env;
    EXPECT_NE(std::find(env.begin(), env.end(), std::pair<std::string, std::string>{"SPIDERFLOW_ATTEMPT", "2"}), env.end());
    EXPECT_NE(std::find(env.begin(), env.end(),
                        std::pair<std::string, std::string>{"SPIDERFLOW_PREVIOUS_LAYOUT", "tp=2 pp=2 dp=4 parts=oregon:2x8,ohio:1x8"}),
              env.end());
    EXPECT_NE(std::find(env.begin(), env.end(), std::pair<std::string, std::string>{"SPIDERFLOW_DP", "6"}), env.end());
}

// A part the broker cancelled whose nodes never confirmed its end: those nodes are lost for the
// next plan, as a part Slurm ended NODE_FAIL has its nodes.
TEST(Coallocator, NodesThatNeverConfirmedTheEndAreLostForTheNextPlan) {
    Policy p;
    p.replan_settle_s = 0;
    Coallocator c(p);
    std::vector<std::string> seen;
    c.set_replanner([&](XJob& job) {
        seen = job.lost_nodes;
        return std::string();
    });
    c.submit(requeued_job("oregon:66", 2), 0);
    run_to_running(c, "oregon:66", 10);
    ASSERT_TRUE(c.report("oregon", ended("oregon:66", 0, 100, "FAILED, exit code 1", true), 20));
    ASSERT_TRUE(c.report("oregon", ended("oregon:66", 0, 100, std::string(kCancelledByBroker) + "x"), 21));
    Report hung = ended("oregon:66", 1, 101, std::string(kCancelledByBroker) + "x");
    hung.lost_nodes = {"oh-gpu001"};
    ASSERT_TRUE(c.report("ohio", hung, 81));
    c.step(82, kNoSilence);
    EXPECT_EQ(c.find("oregon:66")->state, XJobState::Negotiating);
    EXPECT_EQ(seen, std::vector<std::string>{"ohio:oh-gpu001"});
}

// The user's own scancel of a part (Slurm says CANCELLED, not on this broker's order) never
// requeues, nor does a job that did not ask to be.
TEST(Coallocator, TheUsersScancelAndAJobThatDidNotAskAreNeverRequeued) {
    Coallocator c;
    c.submit(requeued_job("oregon:61", 2), 0);
    run_to_running(c, "oregon:61", 10);
    ASSERT_TRUE(c.report("ohio", ended("oregon:61", 1, 101, "CANCELLED"), 20));
    ASSERT_TRUE(c.report("oregon", ended("oregon:61", 0, 100, std::string(kCancelledByBroker) + "x"), 21));
    EXPECT_EQ(c.find("oregon:61")->state, XJobState::Failed);
    EXPECT_EQ(c.find("oregon:61")->reason, "part 1 on ohio ended: CANCELLED");

    c.submit(two_parts("oregon:62"), 30);
    run_to_running(c, "oregon:62", 40);
    ASSERT_TRUE(c.report("ohio", ended("oregon:62", 1, 101, "NODE_FAIL"), 50));
    ASSERT_TRUE(c.report("oregon", ended("oregon:62", 0, 100, std::string(kCancelledByBroker) + "x"), 51));
    EXPECT_EQ(c.find("oregon:62")->state, XJobState::Failed);
    EXPECT_EQ(c.find("oregon:62")->failure_requeues, 0);
}

// A program that keeps failing ends after the bound, and the reason says so.
TEST(Coallocator, TheRetryBoundEndsAJobThatKeepsFailingWithTheReason) {
    Policy p;
    p.replan_settle_s = 0;
    Coallocator c(p);
    c.submit(requeued_job("oregon:63", 1), 0);
    run_to_running(c, "oregon:63", 10);
    ASSERT_TRUE(c.report("oregon", ended("oregon:63", 0, 100, "FAILED, exit code 1", true), 20));
    ASSERT_TRUE(c.report("oregon", ended("oregon:63", 0, 100, std::string(kCancelledByBroker) + "x"), 21));
    ASSERT_TRUE(c.report("ohio", ended("oregon:63", 1, 101, std::string(kCancelledByBroker) + "x"), 21));
    ASSERT_EQ(c.find("oregon:63")->state, XJobState::Queued);
    // The late repeat of the first run's failure changes nothing in the queue.
    EXPECT_FALSE(c.report("oregon", ended("oregon:63", 0, 100, "FAILED, exit code 1"), 22));
    EXPECT_EQ(c.find("oregon:63")->state, XJobState::Queued);
    run_to_running(c, "oregon:63", 30);
    EXPECT_EQ(c.find("oregon:63")->runs.size(), 2u);
    const int a = c.find("oregon:63")->attempt;
    Report again = ended("oregon:63", 0, 100, "FAILED, exit code 1", true);
    again.attempt = a;
    ASSERT_TRUE(c.report("oregon", again, 40));
    for (size_t k = 0; k < 2; ++k) {
        Report e = ended("oregon:63", k, static_cast<uint32_t>(100 + k), std::string(kCancelledByBroker) + "x");
        e.attempt = a;
        ASSERT_TRUE(c.report(k == 0 ? "oregon" : "ohio", e, 41));
    }
    const XJob& j = *c.find("oregon:63");
    EXPECT_EQ(j.state, XJobState::Failed);
    EXPECT_EQ(j.reason, "part 0 on oregon ended: FAILED, exit code 1 (ended after 2 runs: --llm-on-failure=requeue allows 1 requeues)");
}

// A job that cannot be planned again on what is left fails at once, saying why.
TEST(Coallocator, AJobThatCannotBePlannedAgainFailsWithTheReason) {
    Policy p;
    p.replan_settle_s = 5;
    Coallocator c(p);
    c.set_replanner([](XJob& job) {
        job.parts.clear();  // what a failed replanner did is undone
        return std::string("no layout fits 24 GPUs without ohio");
    });
    c.submit(requeued_job("oregon:64", 2), 0);
    run_to_running(c, "oregon:64", 10);
    lose_ohio_node(c, "oregon:64", 20);
    c.step(30, kNoSilence);
    const XJob& j = *c.find("oregon:64");
    EXPECT_EQ(j.state, XJobState::Failed);
    EXPECT_EQ(j.parts.size(), 2u);
    EXPECT_EQ(j.reason, "could not be planned again after part 1 on ohio ended: NODE_FAIL: no layout fits 24 GPUs without ohio");
}

// A cluster silent past the bound is left out of the next plan; its part of the first run is
// still ordered cancelled when it is back.
TEST(Coallocator, ASilentClusterIsLeftOutOfTheNextPlanAndItsOldPartEndedWhenBack) {
    Policy p;
    p.silent_after_s = 100;
    p.replan_settle_s = 0;
    Coallocator c(p);
    std::vector<std::string> forbidden;
    c.set_replanner([&](XJob& job) {
        forbidden = job.lost_clusters;
        job.parts = {Part{PartSpec{"oregon", 2, 8, 16}}, Part{PartSpec{"texas", 1, 8, 8}}};
        return std::string();
    });
    c.submit(requeued_job("oregon:65", 2), 0);
    run_to_running(c, "oregon:65", 10);
    c.step(201, {{"oregon", 200}, {"ohio", 100}});
    ASSERT_TRUE(c.report("oregon", ended("oregon:65", 0, 100, std::string(kCancelledByBroker) + "x"), 202));
    c.step(203, {{"oregon", 203}, {"ohio", 100}});  // ohio's part abandoned: the job is queued again
    c.step(204, {{"oregon", 204}, {"ohio", 100}});  // and planned anew
    const XJob& j = *c.find("oregon:65");
    ASSERT_EQ(j.state, XJobState::Negotiating);
    EXPECT_EQ(forbidden, std::vector<std::string>{"ohio"});
    const auto ohio = c.orders_for("ohio");
    ASSERT_FALSE(ohio.empty());
    EXPECT_EQ(ohio[0].kind, OrderKind::Cancel);
    EXPECT_EQ(ohio[0].job_id, 101u);
    Report back = rep(ReportKind::Ended, "oregon:65", ohio[0].part, j.attempt);
    back.job_id = 101;
    ASSERT_TRUE(c.report("ohio", back, 500));
    for (const Order& o : c.orders_for("ohio")) EXPECT_NE(o.kind, OrderKind::Cancel);
}
