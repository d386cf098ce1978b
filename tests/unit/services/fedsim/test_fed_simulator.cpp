// The federation simulator on traces whose outcome can be worked out by hand, and its
// conservation properties on generated ones.
#include <gtest/gtest.h>

#include <map>

#include <algorithm>
#include <cmath>

#include "services/fedsim/fed_simulator.h"
#include "services/fedsim/helios_trace.h"
#include "services/fedsim/run_summary.h"
#include "common/model/catalog.h"
#include "common/topology/generator.h"
#include "common/util/errors.h"
#include "tests/unit/services/fedsim/fed_fixture.h"

using namespace spiderflow;
using namespace spiderflow::fedsim;
using namespace spiderflow::fedsim::fedtest;

namespace {

FedSimResult run(const Topology& t, const JobTrace& trace, const std::string& policy, double slack = -1) {
    FedSimOptions o;
    o.placement = policy;
    o.check_invariants = true;
    o.slack = slack;
    o.log_decisions = true;   // only logs: what a test may read beside the outcome
    return simulate_federation(site(t), trace, Catalog::builtin(), o);
}

TEST(FedSimulator, OneJobAloneTrainsAtTheCostModelsSpeed) {
    const Topology t = federation({"A", "B"}, 2);
    const FedSimResult r = run(t, trace_of({job("j", 10, 8, "A", 100)}), "spinsearch");
    const JobOutcome& j = r.jobs.at(0);
    ASSERT_TRUE(j.unplaceable.empty()) << j.unplaceable;
    EXPECT_EQ(j.start_s, 10);
    EXPECT_GT(j.alone_iteration_s, 0);
    EXPECT_NEAR(j.finish_s, 10 + 100 * j.alone_iteration_s, 1e-6);
    EXPECT_NEAR(j.mean_iteration_s, j.alone_iteration_s, 1e-9);   // alone: no WAN sharing
    EXPECT_FALSE(j.cross_site);
    EXPECT_EQ(j.gpus, 8);
    EXPECT_EQ(r.summary.finished, 1u);
    EXPECT_NEAR(r.summary.avg_jct_s, 100 * j.alone_iteration_s, 1e-6);
    EXPECT_NEAR(r.summary.tokens_per_s, 64.0 * 2048 / j.alone_iteration_s, 1e-3);
    EXPECT_EQ(r.summary.invariant_violations, 0);
}

// Charged, a decision's wall time passes on the scheduler's clock before the job it places starts,
// and the scheduler makes one decision at a time: the second job's decision waits for the first's.
TEST(FedSimulator, ChargedDecisionsDelayTheStartByTheirWallTime) {
    const Topology t = federation({"A", "B"}, 2);
    const JobTrace trace = trace_of({job("a", 10, 8, "A", 100), job("b", 10, 8, "B", 100)});
    FedSimOptions o;
    o.placement = "spinsearch";
    o.check_invariants = true;
    o.slack = -1;
    const FedSimResult free_run = simulate_federation(site(t), trace, Catalog::builtin(), o);
    EXPECT_EQ(free_run.jobs.at(0).start_s, 10);
    EXPECT_EQ(free_run.jobs.at(1).start_s, 10);
    o.charge_decision_time = true;
    const FedSimResult charged = simulate_federation(site(t), trace, Catalog::builtin(), o);
    const JobOutcome &a = charged.jobs.at(0), &b = charged.jobs.at(1);
    ASSERT_TRUE(a.unplaceable.empty() && b.unplaceable.empty());
    // Each started on its first placement decision (admission's plan is not a scheduling decision).
    ASSERT_EQ(a.decisions, 2);
    ASSERT_EQ(b.decisions, 2);
    EXPECT_GT(a.start_s, 10);
    EXPECT_GT(b.start_s, a.start_s);   // b's decision came after a's
    // What passed is the scheduling decisions' time: within the jobs' planner time (which also
    // counts their admission plans).
    EXPECT_LE(a.start_s - 10, a.planner_wall_s + 1e-9);
    EXPECT_LE(b.start_s - 10, a.planner_wall_s + b.planner_wall_s + 1e-9);
    EXPECT_NEAR(a.finish_s - a.start_s, free_run.jobs.at(0).finish_s - 10, 1e-6);   // it trains as fast
    EXPECT_EQ(charged.summary.invariant_violations, 0);
}

// The evaluation's log: every decision once, with what was free and what was chosen.
TEST(FedSimulator, EveryDecisionIsLoggedWithWhatWasFreeAndWhatWasChosen) {
    const Topology t = federation({"A", "B"}, 2);
    const JobTrace trace = trace_of({job("first", 0, 16, "A", 50), job("second", 1, 16, "A", 50)});
    FedSimOptions o;
    o.placement = "spinsearch";
    o.slack = -1;
    o.log_decisions = true;
    const FedSimResult r = simulate_federation(site(t), trace, Catalog::builtin(), o);
    ASSERT_EQ(static_cast<long>(r.decisions.size()), r.summary.decisions);
    int admissions = 0;
    for (const DecisionRecord& d : r.decisions) admissions += d.admission;
    EXPECT_EQ(admissions, 2);
    // The second job's placement at time 1 sees one cluster free (the first job holds the other).
    const DecisionRecord* second = nullptr;
    for (const DecisionRecord& d : r.decisions)
        if (d.job == "second" && !d.admission && !d.plan.empty()) second = &d;
    ASSERT_NE(second, nullptr);
    EXPECT_TRUE(second->free == "A:16" || second->free == "B:16") << second->free;
    EXPECT_NE(second->plan.find(" on " + second->free), std::string::npos) << second->plan;
    EXPECT_DOUBLE_EQ(second->predicted_iteration_s, r.jobs.at(1).alone_iteration_s);
    EXPECT_FALSE(second->capped);
    const std::string csv = decisions_csv(r);
    EXPECT_EQ(csv.rfind("t_s,job,kind,gpus_min,gpus_max,free,plan,predicted_iteration_s,wall_ms,capped,why,found_by,held,planner_calls\n", 0), 0u);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), static_cast<long>(r.decisions.size()) + 1);
}

// The oracle: per decision the fastest plan of every planner policy, its time not charged, each
// plan naming the planner that found it; no planner's admission plan beats it.
TEST(FedSimulator, TheOracleTakesTheFastestPlanOfEveryPlannerAndCostsNoTime) {
    const Topology t = federation({"A", "B", "C"}, 2);
    const JobTrace trace = trace_of({job("wide", 0, 32, "A", 50), job("small", 5, 8, "B", 50)});
    std::map<std::string, std::map<std::string, double>> admitted;   // job -> policy -> predicted
    for (const char* p : {"oracle", "spinsearch", "global-ilp", "genetic", "greedy", "first-fit", "genetic-dtfm",
                          "ilp-oblivious", "greedy-atlas"}) {
        FedSimOptions o;
        o.placement = p;
        o.slack = -1;
        o.log_decisions = true;
        o.charge_decision_time = true;
        const FedSimResult r = simulate_federation(site(t), trace, Catalog::builtin(), o);
        EXPECT_EQ(r.summary.finished, 2u) << p;
        for (const DecisionRecord& d : r.decisions) {
            // A search its time limit cut short may find another plan alone than inside the oracle.
            if (d.admission && !d.plan.empty() && (!d.capped || std::string(p) == "oracle"))
                admitted[d.job][p] = d.predicted_iteration_s;
            if (std::string(p) != "oracle") {
                EXPECT_TRUE(d.found_by.empty()) << p;
                continue;
            }
            EXPECT_EQ(d.wall_ms, 0) << "the oracle's decisions are free";
            if (!d.plan.empty()) EXPECT_FALSE(d.found_by.empty());
        }
        if (std::string(p) == "oracle") EXPECT_EQ(r.jobs.at(0).start_s, 0) << "no decision time passed";
    }
    for (const auto& [job, by] : admitted) {
        ASSERT_TRUE(by.count("oracle")) << job;
        for (const auto& [p, predicted] : by) EXPECT_LE(by.at("oracle"), predicted + 1e-9) << job << ": " << p;
    }
}

// Identical requests on identical free GPUs are planned once: three identical jobs arriving
// together need one admission plan, not three.
TEST(FedSimulator, AnIdenticalRequestOnTheSameFreeGpusIsPlannedOnce) {
    const Topology t = federation({"A", "B"}, 2);
    const FedSimResult r = run(t, trace_of({job("x", 0, 8, "A", 20), job("y", 0, 8, "A", 20), job("z", 0, 8, "A", 20)}),
                               "spinsearch");
    EXPECT_EQ(r.summary.finished, 3u);
    EXPECT_LT(r.summary.planner_calls, r.summary.decisions);
    EXPECT_EQ(r.summary.invariant_violations, 0);
    // A cached answer is the plan it was: each job trains at the same speed alone.
    EXPECT_DOUBLE_EQ(r.jobs.at(1).alone_iteration_s, r.jobs.at(0).alone_iteration_s);
    // The decisions log says which answers came from the cache (the evaluation times planner
    // calls apart from lookups).
    std::map<std::string, int> admission_calls;
    long logged_calls = 0;
    for (const DecisionRecord& d : r.decisions) {
        if (d.admission) admission_calls[d.job] = d.planner_calls;
        logged_calls += d.planner_calls;
    }
    EXPECT_EQ(admission_calls, (std::map<std::string, int>{{"x", 1}, {"y", 0}, {"z", 0}}));
    EXPECT_EQ(logged_calls, r.summary.planner_calls);
}

TEST(FedSimulator, TwoJobsForOneClusterRunOneAfterTheOther) {
    const Topology t = federation({"A", "B"}, 2);
    const FedSimResult r = run(t, trace_of({job("first", 0, 16, "A", 50), job("second", 1, 16, "A", 50)}), "slurm-alone");
    const JobOutcome &a = r.jobs.at(0), &b = r.jobs.at(1);
    EXPECT_EQ(a.start_s, 0);
    EXPECT_EQ(a.placement, "A:16");
    EXPECT_NEAR(b.start_s, a.finish_s, 1e-6);     // A has 16 GPUs: the second waits for all of them
    EXPECT_NEAR(b.queue_s(), a.finish_s - 1, 1e-6);
    EXPECT_EQ(b.placement, "A:16");               // slurm-alone never uses B
    EXPECT_NEAR(b.finish_s - b.start_s, a.finish_s - a.start_s, 1e-6);
    EXPECT_NEAR(r.summary.makespan_s, b.finish_s, 1e-6);
}

TEST(FedSimulator, TheFederationRuleUsesTheOtherClusterInstead) {
    const Topology t = federation({"A", "B"}, 2);
    const FedSimResult r =
        run(t, trace_of({job("first", 0, 16, "A", 50), job("second", 1, 16, "A", 50)}), "slurm-federation");
    EXPECT_EQ(r.jobs.at(1).start_s, 1);
    EXPECT_EQ(r.jobs.at(1).placement, "B:16");
}

TEST(FedSimulator, AJobThatCannotFitIsReportedWithItsReason) {
    const Topology t = federation({"A", "B"}, 1);   // 16 GPUs in all
    const FedSimResult r = run(t, trace_of({job("big", 0, 64, "A", 10), job("ok", 0, 8, "A", 10)}), "spinsearch");
    EXPECT_FALSE(r.jobs.at(0).unplaceable.empty());
    EXPECT_NE(r.jobs.at(0).unplaceable.find("GPU"), std::string::npos) << r.jobs.at(0).unplaceable;
    EXPECT_LT(r.jobs.at(0).finish_s, 0);
    EXPECT_GT(r.jobs.at(1).finish_s, 0);           // the one behind it is not held up
    EXPECT_EQ(r.summary.unplaceable, 1u);
    EXPECT_EQ(r.summary.finished, 1u);
}

TEST(FedSimulator, TooBigForHomeIsUnplaceableAloneButCrossesSitesWithThePlanner) {
    const Topology t = federation({"A", "B"}, 2);
    const JobTrace trace = trace_of({job("wide", 0, 24, "A", 10)});
    EXPECT_FALSE(run(t, trace, "slurm-alone").jobs.at(0).unplaceable.empty());
    EXPECT_FALSE(run(t, trace, "slurm-federation").jobs.at(0).unplaceable.empty());
    const JobOutcome j = run(t, trace, "spinsearch").jobs.at(0);
    ASSERT_TRUE(j.unplaceable.empty()) << j.unplaceable;
    EXPECT_TRUE(j.cross_site);
    EXPECT_EQ(j.gpus, 24);
}

TEST(FedSimulator, ACrossSiteJobWaitsForBothPartsThenForItsStartBarrier) {
    const Topology t = federation({"A", "B"}, 2);
    // Two 8-GPU jobs hold one node somewhere; the 32-GPU job needs every GPU of both clusters.
    const FedSimResult r = run(t, trace_of({job("x", 0, 8, "A", 30), job("y", 0, 8, "B", 60),
                                            job("all", 1, 32, "A", 20)}), "spinsearch");
    const JobOutcome &x = r.jobs.at(0), &y = r.jobs.at(1), &all = r.jobs.at(2);
    ASSERT_TRUE(all.unplaceable.empty()) << all.unplaceable;
    EXPECT_NEAR(all.start_s, std::max(x.finish_s, y.finish_s), 1e-6);
    EXPECT_TRUE(all.cross_site);
    EXPECT_EQ(all.placement, "A:16 B:16");
    // GPUs held from the common start; training after the 5 s barrier, alone on the WAN.
    EXPECT_NEAR(all.finish_s, all.start_s + 5 + 20 * all.alone_iteration_s, 1e-6);
}

TEST(FedSimulator, BackfillStartsASmallJobThatEndsBeforeTheHeadCanStart) {
    const Topology t = federation({"A"}, 2);
    // long holds 8 of 16 GPUs; head wants 16 and must wait for it; small fits the free 8 and
    // ends before long does, so backfill starts it at once; FIFO makes it wait behind head.
    const JobTrace trace = trace_of({job("long", 0, 8, "A", 200), job("head", 1, 16, "A", 10), job("small", 2, 8, "A", 5)});
    const FedSimResult bf = run(t, trace, "slurm-alone");
    EXPECT_EQ(bf.jobs.at(2).start_s, 2);
    EXPECT_NEAR(bf.jobs.at(1).start_s, bf.jobs.at(0).finish_s, 1e-6);   // the head is not delayed
    FedSimOptions fifo;
    fifo.placement = "slurm-alone";
    fifo.backfill = false;
    const FedSimResult f = simulate_federation(site(t), trace, Catalog::builtin(), fifo);
    EXPECT_NEAR(f.jobs.at(2).start_s, f.jobs.at(1).finish_s, 1e-6);    // FIFO: behind the head
}

// Another tenant holds one node of each cluster for good (outside the trace: no expected end), so
// the 16-GPU job can only run across the 1 Gbps link, far slower than on one cluster, and no
// running job's end says that waiting would end sooner: it starts at once, as without the rule
// (a rule that made it wait from submit as long as starting now loses held nine plans in ten
// back on mixed GPUs under load).
TEST(FedSimulator, APlannerStartsAScatteredJobAtOnceWhenNothingSaysWaitingEndsSooner) {
    const Topology t = federation({"A", "B"}, 2, 1);
    SiteState s = site(t);
    s.allocate("tenant", std::vector<NodeShare>{{NodeName{"A", "An1"}, 8, 0}, {NodeName{"B", "Bn1"}, 8, 0}}, 0);
    const JobTrace trace = trace_of({job("j", 0, 16, "A", 200)});
    FedSimOptions o;
    o.check_invariants = true;
    o.slack = -1;
    o.log_decisions = true;
    const JobOutcome eager = simulate_federation(s, trace, Catalog::builtin(), o).jobs.at(0);
    o.slack = 0.25;
    const FedSimResult r = simulate_federation(s, trace, Catalog::builtin(), o);
    const JobOutcome& held_back = r.jobs.at(0);
    EXPECT_EQ(eager.start_s, 0);
    EXPECT_TRUE(eager.cross_site);
    EXPECT_EQ(held_back.start_s, 0);
    EXPECT_TRUE(held_back.cross_site);
    EXPECT_NEAR(held_back.finish_s, eager.finish_s, 1e-6);
    EXPECT_TRUE(std::none_of(r.decisions.begin(), r.decisions.end(), [](const DecisionRecord& d) { return d.held; }));
}

// Two clusters of three 8-GPU nodes joined by 1 Gbps, another tenant holding two of B's for good:
// a 16-GPU job runs fast on A alone, or slowly across the link.
namespace {
SiteState a_and_one_node_of_b() {
    SiteState s = site(federation({"A", "B"}, 3, 1));
    s.allocate("tenant", std::vector<NodeShare>{{NodeName{"B", "Bn2"}, 8, 0}, {NodeName{"B", "Bn3"}, 8, 0}}, 0);
    return s;
}
}  // namespace

// A job that queued behind others is first offered a scattered placement long after it arrived,
// shortly before its best cluster frees up: the running jobs' expected ends say that waiting ends
// sooner, so it waits, however long it has queued (a rule counting patience from submit would have
// started it scattered, at 20x the iteration time).
TEST(FedSimulator, AJobWaitsForItsBestClusterWhenThatEndsSooner) {
    SiteState s = a_and_one_node_of_b();
    FedSimOptions o;
    o.check_invariants = true;
    o.slack = 0.25;
    // The iteration times on one cluster and across the 1 Gbps link, from the job alone.
    const auto alone_it = [&](int gpus) {
        return simulate_federation(s, trace_of({job("j", 0, gpus, "A", 10)}), Catalog::builtin(), o).jobs.at(0).alone_iteration_s;
    };
    const double best_it = alone_it(16), side_it = alone_it(8);
    SiteState only_scattered = s.clone();
    only_scattered.allocate("other", std::vector<NodeShare>{{NodeName{"A", "An1"}, 8, 0}, {NodeName{"A", "An2"}, 8, 0}}, 0);
    o.slack = -1;
    const JobOutcome cross = simulate_federation(only_scattered, trace_of({job("j", 0, 16, "A", 10)}), Catalog::builtin(), o).jobs.at(0);
    ASSERT_TRUE(cross.cross_site);
    const double cross_it = cross.alone_iteration_s;
    ASSERT_GT(cross_it, 2 * best_it);
    // "hold" takes two of A's nodes, "side" the third (or B's free one): the 16-GPU job j queues
    // until side ends at about 10 x j's loss, when 8 GPUs of A and 8 of B are free; hold ends a
    // little later.
    const double iters = 100, loss = iters * (cross_it - best_it);
    const double side_end = 10 * loss, hold_end = side_end + 0.2 * loss;
    const JobTrace trace = trace_of({job("hold", 0, 16, "A", std::round(hold_end / best_it)),
                                     job("side", 0, 8, "A", std::round(side_end / side_it)),
                                     job("j", 1, 16, "A", iters)});
    o.slack = 0.25;
    o.log_decisions = true;
    const FedSimResult r = simulate_federation(s, trace, Catalog::builtin(), o);
    ASSERT_EQ(r.jobs.at(1).gpus, 8);
    // The decisions log says which plans the scheduler held j back from: each had a plan.
    const auto held = std::count_if(r.decisions.begin(), r.decisions.end(), [](const DecisionRecord& d) { return d.held; });
    EXPECT_GT(held, 0);
    for (const DecisionRecord& d : r.decisions)
        if (d.held) EXPECT_FALSE(d.plan.empty()) << "a held decision had a plan";
    const JobOutcome& j = r.jobs.at(2);
    EXPECT_FALSE(j.cross_site) << j.placement;
    EXPECT_NEAR(j.start_s, r.jobs.at(0).finish_s, 1e-6);
    EXPECT_NEAR(j.alone_iteration_s, best_it, 1e-9);
}

// The head of the queue waits for its best cluster (A, busy until "hold" ends); a long job behind
// it that fits elsewhere (B) starts there at once rather than waiting behind the head: the head
// reserves its own clusters, not the federation. The head still gets A when hold ends.
TEST(FedSimulator, AHeadWaitingForItsBestClusterReservesThatClusterAlone) {
    SiteState s = a_and_one_node_of_b();
    FedSimOptions o;
    o.check_invariants = true;
    o.slack = 0.25;
    o.log_decisions = true;
    const double best_it = simulate_federation(s, trace_of({job("j", 0, 16, "A", 10)}), Catalog::builtin(), o).jobs.at(0).alone_iteration_s;
    // hold (two of A's nodes) ends after 200 iterations of j's best; j would lose far more
    // across the 1 Gbps link (the test above: over twice the best iteration), so it waits for A.
    const JobTrace trace = trace_of({job("hold", 0, 16, "A", 200), job("j", 1, 16, "A", 1000),
                                     job("long", 2, 8, "B", 2000)});
    const FedSimResult r = simulate_federation(s, trace, Catalog::builtin(), o);
    const JobOutcome &hold = r.jobs.at(0), &j = r.jobs.at(1), &long_job = r.jobs.at(2);
    ASSERT_GT(best_it, 0);
    EXPECT_FALSE(j.cross_site) << j.placement;
    EXPECT_NEAR(j.start_s, hold.finish_s, 1e-6) << "the head waits for A and gets it when hold ends";
    EXPECT_NEAR(long_job.start_s, 2, 1e-6) << "the long job starts on B at once: " << long_job.placement;
    EXPECT_EQ(long_job.placement, "B:8");
    EXPECT_GT(long_job.finish_s, hold.finish_s);   // it outlasts the head's wait: only B was open to it
}

TEST(FedSimulator, NoClusterIsOverAllocatedAndEveryJobIsAccountedFor) {
    GeneratorOptions g;
    g.clusters = 6;
    g.seed = 3;
    const Topology t = generate_topology(g);
    const JobTrace trace = generated(t, 40, 5, 1.5, 1);
    for (const char* policy : {"slurm-alone", "slurm-federation", "spinsearch", "greedy"}) {
        const FedSimResult r = run(t, trace, policy, 0.25);
        EXPECT_EQ(r.summary.invariant_violations, 0) << policy;
        for (const auto& j : r.jobs)
            EXPECT_TRUE(j.finish_s > 0 || !j.unplaceable.empty()) << policy << " " << j.id;
        EXPECT_EQ(r.summary.finished + r.summary.unplaceable, trace.jobs.size()) << policy;
        // Every job that ran ended after it started, and started no earlier than it arrived.
        double last = 0;
        for (const auto& j : r.jobs) {
            if (j.finish_s > 0) EXPECT_LE(j.submit_s, j.start_s) << policy << " " << j.id;
            last = std::max({last, j.finish_s, j.submit_s});
        }
        // The clock stops with the last event that matters (no wake-up left by a job that
        // has since started runs it on).
        ASSERT_FALSE(r.timeline.empty());
        EXPECT_EQ(r.timeline.back().t, last) << policy;
    }
}

TEST(FedSimulator, TheSameInputsGiveTheSameOutput) {
    const Topology t = federation({"A", "B", "C"}, 2);
    const JobTrace trace = generated(t, 25, 9, 0.9, 0.5);
    EXPECT_EQ(jobs_csv(run(t, trace, "spinsearch", 0.25)), jobs_csv(run(t, trace, "spinsearch", 0.25)));
}

TEST(FedSimulator, AHomeThatIsNotAClusterIsBadInputNamingTheLine) {
    const Topology t = federation({"A"}, 1);
    TraceJob j = job("x", 0, 8, "Z", 10);
    j.line = 7;
    try {
        run(t, trace_of({j}), "spinsearch");
        FAIL() << "accepted an unknown home";
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 7);
        EXPECT_EQ(e.field(), "home");
    }
}

}  // namespace
