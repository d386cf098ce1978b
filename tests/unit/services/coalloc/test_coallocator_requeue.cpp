// --llm-on-failure=requeue: a job queued again after a failure that was not the user's, planned
// anew without what failed.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "services/coalloc/coallocator.h"
#include "services/coalloc/end_causes.h"
#include "tests/unit/services/coalloc/coalloc_fixture.h"

using namespace spiderflow::coalloc;
using namespace spiderflow::coalloc::test;

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

// Slurm's default JobRequeue=1: a lost node made ohio requeue its part itself (pending again,
// Restarts=1), and oregon's batch script, its peers gone, exited 0. The requeued part is a failed
// part, and the completion beside it is that failure's, not a job's end: the job is queued again
// at once (not after completion_grace), whichever agent reported first.
TEST(Coallocator, APartSlurmRequeuedIsAFailureAndAPeersCompletionBesideItIsToo) {
    for (const bool completion_first : {true, false}) {
        Policy p;
        p.replan_settle_s = 0;
        Coallocator c(p);
        c.submit(requeued_job("oregon:67", 2), 0);
        run_to_running(c, "oregon:67", 10);
        Report done = ended("oregon:67", 0, 100, "COMPLETED");
        done.completed = true;
        const Report requeued = ended("oregon:67", 1, 101, std::string(kRequeuedBySlurm) + " (restart 1)");
        if (completion_first) {
            ASSERT_TRUE(c.report("oregon", done, 20));
            c.step(21, kNoSilence);
            ASSERT_EQ(c.find("oregon:67")->state, XJobState::Running) << "a completion alone waits for the others";
            ASSERT_TRUE(c.report("ohio", requeued, 22));
        } else {
            ASSERT_TRUE(c.report("ohio", requeued, 20));
            ASSERT_TRUE(c.report("oregon", done, 22));
        }
        const XJob& j = *c.find("oregon:67");
        EXPECT_EQ(j.state, XJobState::Queued) << (completion_first ? "completion first: " : "requeue first: ") << j.reason;
        EXPECT_EQ(j.failure_requeues, 1);
        ASSERT_EQ(j.runs.size(), 1u);
        EXPECT_EQ(j.runs[0].ended_at, 22) << "not completion_grace later";
        EXPECT_EQ(j.runs[0].end, "part 1 on ohio ended: REQUEUED by Slurm (restart 1)");
    }
}
