// The co-allocator's jobs in arrival order: malformed jobs refused, no hold-and-wait between
// jobs that share a cluster, order kept across a restore, cancel.
#include <gtest/gtest.h>

#include <vector>
#include <stdexcept>

#include "services/coalloc/coallocator.h"
#include "services/coalloc/stand_in_cluster.h"
#include "tests/unit/services/coalloc/coalloc_fixture.h"

using namespace spiderflow::coalloc;
using namespace spiderflow::coalloc::test;

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

TEST(Coallocator, AHeldJobNeedsAPartOnItsHomeCluster) {
    Coallocator c;
    XJob job = two_parts("texas:46");
    job.home = "texas";
    job.home_job = 46;
    EXPECT_THROW(c.submit(job, 0), std::invalid_argument);
}
