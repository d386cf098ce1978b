// The agent's part runner against a stand-in slurmctld: which action each order takes, what it
// reports, and that repeating an order repeats no action.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "services/agent/part_fence.h"
#include "services/agent/part_runner.h"
#include "services/coalloc/end_causes.h"

using namespace spiderflow;
using namespace spiderflow::agent;
using coalloc::Order;
using coalloc::OrderKind;
using coalloc::Report;
using coalloc::ReportKind;

namespace {

struct FakeHands : SlurmHands {
    int64_t start = 1000;
    bool busy = false;
    bool down = false;
    int submits = 0;
    std::map<std::string, std::vector<std::string>> reservations;
    std::vector<PartJob> jobs;
    std::vector<uint32_t> cancelled;
    int64_t will_run(const Order&) override {
        if (down) throw std::runtime_error("slurmctld does not answer");
        return start;
    }
    std::vector<std::string> reserve(const Order& o) override {
        if (busy) throw PartRefused("Requested nodes are busy");
        reservations[o.reservation] = {"n1", "n2"};
        return reservations[o.reservation];
    }
    void release(const std::string& name) override { reservations.erase(name); }
    std::vector<std::string> part_reservations() override {
        std::vector<std::string> names;
        for (const auto& [name, nodes] : reservations) names.push_back(name);
        return names;
    }
    std::string address_of(const std::string& node) override { return node + ".wan.example.org"; }
    uint32_t submit(const Order& o) override {
        ++submits;
        PartJob j;
        j.job_id = static_cast<uint32_t>(500 + submits);
        j.xjob = o.xjob;
        j.part = o.part;
        j.attempt = o.attempt;
        jobs.push_back(j);
        return j.job_id;
    }
    std::vector<std::string> told;
    void cancel(uint32_t id, const std::string& why) override {
        cancelled.push_back(id);
        told.push_back(why);
    }
    std::vector<PartJob> part_jobs() override { return jobs; }
    std::vector<HomeJob> home_jobs() override { return {}; }
    void take_over(uint32_t) override {}
    std::string batch_script(uint32_t) override { return "#!/bin/sh\n"; }
    std::vector<uint32_t> nudged;
    void nudge(uint32_t id) override { nudged.push_back(id); }
    std::vector<uint32_t> released;
    void start_held(const Order& o) override {
        released.push_back(o.held_job);
        PartJob j;
        j.job_id = o.held_job;
        j.xjob = o.xjob;
        j.part = o.part;
        j.attempt = o.attempt;
        if (jobs.empty() || jobs.back().job_id != o.held_job) jobs.push_back(j);
    }
};

Order order(OrderKind kind, const std::string& user = "alice") {
    Order o;
    o.kind = kind;
    o.xjob = "oregon:7";
    o.part = 1;
    o.attempt = 2;
    o.user = user;
    o.account = "ml";
    o.nodes = 2;
    o.gpus_per_node = 8;
    o.not_before = 1200;
    o.start_at = 1500;
    o.duration_s = 600;
    o.reservation = "spiderflow-oregon_7-a2-p1";
    o.job_name = o.reservation;
    o.script = "#!/bin/sh\n";
    return o;
}

struct Runner {
    FakeHands hands;
    std::vector<std::string> log;
    PartRunner runner;
    explicit Runner(PartPolicy policy = {})
        : runner("ohio", BrokerClient(BrokerEndpoint{"http://127.0.0.1:1", "t"}), hands, std::move(policy),
                 [this](const std::string& s) { log.push_back(s); }) {}
    // A part submitted, running, then cancelled on the broker's order: the order (its job is
    // hands.jobs[0], still ending).
    Order cancelled_part() {
        runner.round({order(OrderKind::Submit)});
        hands.jobs[0].state = PartJob::State::Running;
        runner.acknowledge(runner.round({}));
        Order o = order(OrderKind::Cancel);
        o.job_id = hands.jobs[0].job_id;
        o.reason = "part 0 on oregon ended: FAILED, exit code 1";
        EXPECT_TRUE(runner.round({o}).empty());
        return o;
    }
};

// The one report of a cancelled part (Runner::cancelled_part) ended with `node` lost.
void expect_ended_with_lost(const std::vector<Report>& reports, const std::string& node) {
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::Ended);
    EXPECT_EQ(reports[0].lost_nodes, std::vector<std::string>{node});
    EXPECT_EQ(reports[0].reason, "cancelled: part 0 on oregon ended: FAILED, exit code 1");
}

}  // namespace

TEST(PartRunner, OffersNeverBeforeNotBefore) {
    Runner r;
    const auto reports = r.runner.round({order(OrderKind::WillRun)});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::Offer);
    EXPECT_EQ(reports[0].earliest_start, 1200);
    EXPECT_EQ(reports[0].attempt, 2);
}

TEST(PartRunner, ABusyClusterReportsAFailedReservationNotAnError) {
    Runner r;
    r.hands.busy = true;
    auto reports = r.runner.round({order(OrderKind::Reserve)});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::ReserveFailed);
    EXPECT_EQ(reports[0].reason, "Requested nodes are busy");
    r.hands.busy = false;
    reports = r.runner.round({order(OrderKind::Reserve)});
    EXPECT_EQ(reports[0].kind, ReportKind::Reserved);
    EXPECT_EQ(reports[0].nodes, (std::vector<std::string>{"n1", "n2"}));
    EXPECT_EQ(reports[0].address, "n1.wan.example.org");  // what other sites use as MASTER_ADDR
}

TEST(PartRunner, ASubmitOrderRepeatedSubmitsOnce) {
    Runner r;
    auto first = r.runner.round({order(OrderKind::Submit)});
    auto again = r.runner.round({order(OrderKind::Submit)});  // the broker did not hear the first
    EXPECT_EQ(r.hands.submits, 1);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].kind, ReportKind::Submitted);
    EXPECT_EQ(again[0].job_id, first[0].job_id);
}

TEST(PartRunner, AUserOutsideTheAllowListIsRefusedWithTheKey) {
    PartPolicy policy;
    policy.users = {"bob"};
    Runner r(policy);
    const auto reports = r.runner.round({order(OrderKind::WillRun), order(OrderKind::Submit)});
    ASSERT_EQ(reports.size(), 2u);
    EXPECT_EQ(reports[0].kind, ReportKind::Refused);
    EXPECT_EQ(reports[0].reason, "user 'alice' may not run cross-site parts on ohio (agent.conf part_users)");
    EXPECT_EQ(r.hands.submits, 0);
}

TEST(PartRunner, WhileTheSiteConfigDoesNotParseNoPartIsTaken) {
    const std::string path = ::testing::TempDir() + "/sf-part-runner-spiderflow.conf";
    std::ofstream(path) << "time_budgit = 5\n";
    PartPolicy policy;
    policy.site_conf = path;
    Runner r(policy);
    auto reports = r.runner.round({order(OrderKind::WillRun), order(OrderKind::Submit)});
    ASSERT_EQ(reports.size(), 2u);
    for (const auto& rep : reports) {
        EXPECT_EQ(rep.kind, ReportKind::Refused);
        EXPECT_NE(rep.reason.find("SpiderFlow is off on ohio (configuration error: "), std::string::npos) << rep.reason;
        EXPECT_NE(rep.reason.find("time_budgit"), std::string::npos) << rep.reason;
    }
    EXPECT_EQ(r.hands.submits, 0);
    std::ofstream(path) << "time_budget = 5\n";  // fixed: parts are taken again
    reports = r.runner.round({order(OrderKind::WillRun)});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::Offer);
    std::remove(path.c_str());
}

TEST(PartRunner, SlurmctldDownSkipsTheOrderForNextCycle) {
    Runner r;
    r.hands.down = true;
    EXPECT_TRUE(r.runner.round({order(OrderKind::WillRun)}).empty());
    ASSERT_EQ(r.log.size(), 1u);
    EXPECT_NE(r.log[0].find("next cycle tries again"), std::string::npos);
}

TEST(PartRunner, PartStatesAreReportedUntilAcknowledged) {
    Runner r;
    r.runner.round({order(OrderKind::Submit)});
    r.hands.jobs[0].state = PartJob::State::Running;
    auto reports = r.runner.round({});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::Running);
    EXPECT_EQ(r.runner.round({}).size(), 1u);  // not acknowledged yet: again
    r.runner.acknowledge(reports);
    EXPECT_TRUE(r.runner.round({}).empty());
    r.hands.jobs[0].state = PartJob::State::Ended;
    r.hands.jobs[0].reason = "FAILED, exit code 1";
    reports = r.runner.round({});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::Ended);
    EXPECT_FALSE(reports[0].completed);
    EXPECT_EQ(reports[0].reason, "FAILED, exit code 1");
    EXPECT_FALSE(reports[0].still_running);
}

// A part whose batch script failed while its job waits for the verdict is reported ended once,
// saying its job still runs (the broker then orders it cancelled, with the reason).
TEST(PartRunner, AFailedScriptWaitingForTheVerdictIsReportedEndedAndStillRunning) {
    Runner r;
    r.runner.round({order(OrderKind::Submit)});
    r.hands.jobs[0].state = PartJob::State::Ended;
    r.hands.jobs[0].still_running = true;
    r.hands.jobs[0].reason = "FAILED, exit code 1";
    auto reports = r.runner.round({});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::Ended);
    EXPECT_TRUE(reports[0].still_running);
    r.runner.acknowledge(reports);
    EXPECT_TRUE(r.runner.round({}).empty());
}

TEST(PartRunner, CancelEndsThePartAndSaysWhy) {
    Runner r;
    Order o = order(OrderKind::Cancel);
    o.job_id = 77;
    o.reason = "part 0 on oregon ended: NODE_FAIL";
    const auto reports = r.runner.round({o});
    EXPECT_EQ(r.hands.cancelled, std::vector<uint32_t>{77});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::Ended);
    EXPECT_EQ(reports[0].reason, "cancelled: part 0 on oregon ended: NODE_FAIL");
    // The part's own output is told why, naming the cross-site job.
    EXPECT_EQ(r.hands.told, std::vector<std::string>{"cross-site job oregon:7 ends: part 0 on oregon ended: NODE_FAIL"});
}

// A running part cancelled on the broker's order is reported ended only once Slurm has it ended
// on every node: a lost node keeps it completing until Slurm marks the node down, and the job is
// planned anew only then. The order repeated meanwhile cancels nothing twice.
TEST(PartRunner, ACancelledPartIsReportedEndedOnceEveryNodeConfirmed) {
    Runner r;
    r.runner.round({order(OrderKind::Submit)});
    r.hands.jobs[0].state = PartJob::State::Running;
    r.runner.acknowledge(r.runner.round({}));
    Order o = order(OrderKind::Cancel);
    o.job_id = r.hands.jobs[0].job_id;
    o.reason = "part 0 on oregon ended: FAILED, exit code 1";
    EXPECT_TRUE(r.runner.round({o}).empty());
    EXPECT_EQ(r.hands.cancelled.size(), 1u);
    r.hands.jobs[0].state = PartJob::State::Completing;
    EXPECT_TRUE(r.runner.round({o}).empty());
    EXPECT_EQ(r.hands.cancelled.size(), 1u);
    r.hands.jobs[0].state = PartJob::State::Ended;
    r.hands.jobs[0].reason = "CANCELLED";
    auto reports = r.runner.round({o});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::Ended);
    EXPECT_EQ(reports[0].reason, "cancelled: part 0 on oregon ended: FAILED, exit code 1");
    r.runner.acknowledge(reports);
    EXPECT_TRUE(r.runner.round({}).empty());
}

// A cancelled part whose nodes do not confirm its end within part_end_grace (a lost node: Slurm
// holds the job completing until it marks the node down) is reported ended, naming those nodes.
TEST(PartRunner, APartStillCompletingAfterTheGraceIsReportedWithItsUnconfirmedNodes) {
    PartPolicy quick;
    quick.end_grace_s = 0;
    Runner r(quick);
    const Order o = r.cancelled_part();
    r.hands.jobs[0].state = PartJob::State::Completing;
    r.hands.jobs[0].unconfirmed = {"oh-gpu002"};
    const auto reports = r.runner.round({o});
    expect_ended_with_lost(reports, "oh-gpu002");
    r.runner.acknowledge(reports);
    EXPECT_TRUE(r.runner.round({}).empty());
    r.hands.jobs[0].state = PartJob::State::Ended;  // Slurm marked the node down at last: said already
    EXPECT_TRUE(r.runner.round({}).empty());
}

// A cancelled part whose only unconfirmed nodes are ones Slurm marks not responding (their slurmd
// did not take the job's end: a lost node) is reported at once, naming them, long before
// part_end_grace; a node that answers but has not finished (KillWait) is waited for.
TEST(PartRunner, APartWhoseUnconfirmedNodesDoNotAnswerSlurmIsReportedAtOnce) {
    Runner r;  // part_end_grace 60 s
    const Order o = r.cancelled_part();
    r.hands.jobs[0].state = PartJob::State::Completing;
    r.hands.jobs[0].unconfirmed = {"oh-gpu001", "oh-gpu002"};
    r.hands.jobs[0].unresponsive = {"oh-gpu002"};
    EXPECT_TRUE(r.runner.round({o}).empty()) << "oh-gpu001 answers and is still ending its part";
    r.hands.jobs[0].unconfirmed = {"oh-gpu002"};
    const auto reports = r.runner.round({o});
    expect_ended_with_lost(reports, "oh-gpu002");
    EXPECT_NE(r.log.back().find("oh-gpu002 do not answer Slurm"), std::string::npos) << r.log.back();
}

// A part submitted (or released) for a common start gets a scheduling pass asked for it just
// after that start, so that every cluster starts its part then, not at its own next look.
TEST(PartRunner, APartIsNudgedAtItsCommonStart) {
    Runner r;
    Order o = order(OrderKind::Submit);  // its start, 1500, is long past: the nudge is due now
    r.runner.round({o});
    r.runner.tick();
    EXPECT_EQ(r.hands.nudged, std::vector<uint32_t>{r.hands.jobs[0].job_id});
    r.runner.round({o});  // the order again, its report not yet acknowledged
    r.runner.tick();
    EXPECT_EQ(r.hands.nudged.size(), 1u) << "a second a nudge at most";
}

// The user cancelled the part before the broker's order came: the report says CANCELLED, as
// Slurm does, so the broker does not take it for a part it ended (and requeue the job).
TEST(PartRunner, ACancelOrderForAJobEndedAlreadyReportsItsOwnEnd) {
    Runner r;
    r.runner.round({order(OrderKind::Submit)});
    r.hands.jobs[0].state = PartJob::State::Ended;
    r.hands.jobs[0].reason = "CANCELLED";
    Order o = order(OrderKind::Cancel);
    o.job_id = r.hands.jobs[0].job_id;
    o.reason = "part 0 on oregon ended: FAILED, exit code 1";
    const auto reports = r.runner.round({o});
    EXPECT_TRUE(r.hands.cancelled.empty());
    ASSERT_EQ(reports.size(), 1u) << "the end is told once, not by the order and by the watch both";
    EXPECT_EQ(reports[0].kind, ReportKind::Ended);
    EXPECT_EQ(reports[0].reason, "CANCELLED");
}

// A part Slurm requeued itself (JobRequeue=1 and a lost node: pending again, Restarts=1) is an
// ended part for the broker, never one still running; once the broker has the report the agent
// cancels it (so it never starts alone later), and only then: cancelled before, a lost report
// would be followed by CANCELLED, the user's word, which is never requeued.
TEST(PartRunner, APartSlurmRequeuedIsReportedEndedThenCancelled) {
    Runner r;
    r.runner.round({order(OrderKind::Submit)});
    r.hands.jobs[0].state = PartJob::State::Running;
    r.runner.acknowledge(r.runner.round({}));
    r.hands.jobs[0].state = PartJob::State::Ended;
    r.hands.jobs[0].requeued = true;
    r.hands.jobs[0].reason = std::string(coalloc::kRequeuedBySlurm) + " (restart 1)";
    auto reports = r.runner.round({});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::Ended);
    EXPECT_FALSE(reports[0].completed);
    EXPECT_FALSE(reports[0].still_running);
    EXPECT_EQ(reports[0].reason, "REQUEUED by Slurm (restart 1)");
    EXPECT_TRUE(r.hands.cancelled.empty()) << "cancelled before the broker had its end";
    reports = r.runner.round({});  // the broker did not get it: said again
    ASSERT_EQ(reports.size(), 1u);
    r.runner.acknowledge(reports);
    EXPECT_TRUE(r.runner.round({}).empty());
    EXPECT_EQ(r.hands.cancelled, std::vector<uint32_t>{r.hands.jobs[0].job_id});
}

// The metrics textfile's figures: part jobs by state as the last round saw them, and a part Slurm
// requeued counted once however many rounds see it before it is cancelled.
TEST(PartRunner, CountsPartsByStateAndEachSlurmRequeueOnce) {
    Runner r;
    EXPECT_TRUE(r.runner.figures().by_state.empty());  // slurmctld not asked yet
    r.runner.round({order(OrderKind::Submit)});
    EXPECT_EQ(r.runner.figures().by_state.at("pending"), 0);  // listed before the order was carried out
    r.runner.round({});
    EXPECT_EQ(r.runner.figures().by_state.at("pending"), 1);
    EXPECT_EQ(r.runner.figures().by_state.at("running"), 0);
    r.hands.jobs[0].state = PartJob::State::Ended;
    r.hands.jobs[0].requeued = true;
    r.runner.round({});
    r.runner.round({});
    EXPECT_EQ(r.runner.figures().by_state.at("ended"), 1);
    EXPECT_EQ(r.runner.figures().by_state.at("pending"), 0);
    EXPECT_EQ(r.runner.figures().requeued_by_slurm, 1u);
}

TEST(PartRunner, TheHomeClusterReleasesSbatchsHeldJobInsteadOfSubmittingOne) {
    Runner r(PartPolicy{{"bob"}, {}});  // the allow-list is for other clusters' users
    Order o = order(OrderKind::Submit);
    o.xjob = "ohio:42";
    o.held_job = 42;
    auto reports = r.runner.round({o});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::Submitted);
    EXPECT_EQ(reports[0].job_id, 42u);
    EXPECT_EQ(r.hands.submits, 0);
    // The order stays until the broker has the report: the release is repeated, never a submit.
    reports = r.runner.round({o});
    EXPECT_EQ(reports[0].job_id, 42u);
    EXPECT_EQ(r.hands.submits, 0);
    EXPECT_EQ(r.hands.released, (std::vector<uint32_t>{42, 42}));
}

TEST(PartRunner, AnotherClustersJobStillMeetsTheAllowList) {
    Runner r(PartPolicy{{"bob"}, {}});
    Order o = order(OrderKind::WillRun);
    o.xjob = "oregon:42";
    const auto reports = r.runner.round({o});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::Refused);
}

// The fence (part_fence.h): cut off from the broker past part_fence_after, the agent ends its
// parts and removes their reservations; back in touch, each end reads ISOLATED, not CANCELLED.
TEST(PartFence, IsolatedPastTheGraceEndsLivePartsAndRemovesReservationsAndSaysSoOnceBack) {
    using Clock = PartFence::Clock;
    const Clock::time_point t0{};
    FakeHands hands;
    std::vector<std::string> log;
    PartFence fence(15, [&](const std::string& s) { log.push_back(s); }, t0);
    hands.reserve(order(OrderKind::Reserve));
    hands.submit(order(OrderKind::Submit));
    hands.jobs[0].state = PartJob::State::Running;
    PartJob done = hands.jobs[0];
    done.job_id = 9;
    done.state = PartJob::State::Ended;  // ended on its own: left alone
    hands.jobs.push_back(done);

    fence.check(hands, t0 + std::chrono::seconds(14));
    EXPECT_TRUE(hands.cancelled.empty()) << "within the grace nothing is ended";
    EXPECT_EQ(hands.part_reservations().size(), 1u);
    fence.check(hands, t0 + std::chrono::seconds(15));
    EXPECT_EQ(hands.cancelled, std::vector<uint32_t>{hands.jobs[0].job_id});
    EXPECT_TRUE(hands.part_reservations().empty());
    EXPECT_NE(hands.told.back().find("never runs alone"), std::string::npos) << hands.told.back();
    EXPECT_EQ(fence.reason_for(9), "");

    // Back in touch: its end is reported ISOLATED, a cause the broker requeues on.
    hands.jobs[0].state = PartJob::State::Ended;
    hands.jobs[0].reason = "CANCELLED";
    fence.heard(t0 + std::chrono::seconds(20));
    Runner r;
    r.hands.jobs = {hands.jobs[0]};
    PartRunner runner("ohio", BrokerClient(BrokerEndpoint{"http://127.0.0.1:1", "t"}), r.hands, {},
                      [](const std::string&) {}, &fence);
    const auto reports = runner.round({});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, ReportKind::Ended);
    EXPECT_EQ(reports[0].reason.rfind(coalloc::kIsolatedFromBroker, 0), 0u) << reports[0].reason;
    EXPECT_TRUE(coalloc::requeueable("part 1 on ohio ended: " + reports[0].reason));
    // Heard again: a new silence starts from then.
    hands.cancelled.clear();
    fence.check(hands, t0 + std::chrono::seconds(30));
    EXPECT_TRUE(hands.cancelled.empty());
}

TEST(PartFence, ZeroNeverFences) {
    FakeHands hands;
    hands.submit(order(OrderKind::Submit));
    PartFence fence(0, [](const std::string&) {}, PartFence::Clock::time_point{});
    fence.check(hands, PartFence::Clock::time_point{} + std::chrono::hours(24));
    EXPECT_TRUE(hands.cancelled.empty());
}
