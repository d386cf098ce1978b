// The stages of an attempt: every offer in gives the common start, every part reserved starts
// the parts, every part running forms one world.
#include <gtest/gtest.h>

#include <vector>

#include "services/coalloc/coallocator.h"
#include "tests/unit/services/coalloc/coalloc_fixture.h"

using namespace spiderflow::coalloc;
using namespace spiderflow::coalloc::test;

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

// A part whose script ran for a second starts and ends between two looks of its agent: its end
// (completed) is word enough that it ran. Both parts so: the job ran once and completed, and is
// not started again when the start barrier passes.
TEST(Coallocator, PartsThatCompletedUnseenRunningRanOnce) {
    Coallocator c;
    c.submit(two_parts("oregon:40"), 0);
    c.step(0, kNoSilence);
    offer_and_reserve(c, "oregon:40", 10, 0);
    ASSERT_EQ(c.find("oregon:40")->state, XJobState::Starting);
    Report done = ended("oregon:40", 1, 201, "COMPLETED");
    done.completed = true;
    ASSERT_TRUE(c.report("ohio", done, 12));
    EXPECT_EQ(c.find("oregon:40")->state, XJobState::Starting);   // part 0 not heard of yet
    done = ended("oregon:40", 0, 200, "COMPLETED");
    done.completed = true;
    ASSERT_TRUE(c.report("oregon", done, 13));
    const XJob& j = *c.find("oregon:40");
    EXPECT_EQ(j.state, XJobState::Completed) << j.reason;
    ASSERT_EQ(j.runs.size(), 1u);
    EXPECT_EQ(j.runs[0].end, "completed");
    c.step(10 + Policy{}.barrier_s + 1, kNoSilence);
    EXPECT_EQ(c.find("oregon:40")->state, XJobState::Completed);
    EXPECT_EQ(c.find("oregon:40")->runs.size(), 1u);
}

// One part completed unseen while the other runs: the job is running (the completion grace
// then ends the other if it outlives it), not waiting for the barrier to call the first late.
TEST(Coallocator, APartThatCompletedUnseenCountsAsStartedAtTheBarrier) {
    Coallocator c;
    c.submit(two_parts("oregon:41"), 0);
    c.step(0, kNoSilence);
    offer_and_reserve(c, "oregon:41", 10, 0);
    Report done = ended("oregon:41", 0, 200, "COMPLETED");
    done.completed = true;
    ASSERT_TRUE(c.report("oregon", done, 12));
    Report r = rep(ReportKind::Running, "oregon:41", 1, 1);
    r.job_id = 201;
    ASSERT_TRUE(c.report("ohio", r, 12));
    EXPECT_EQ(c.find("oregon:41")->state, XJobState::Running);
    EXPECT_EQ(c.find("oregon:41")->runs.size(), 1u);
}
