// Hand-computed completion times for every scheduler on cases small enough to check on paper.
#include <gtest/gtest.h>

#include "common/coflow/allocation.h"
#include "common/coflow/hermod_order.h"
#include "common/coflow/schedulers.h"
#include "common/util/errors.h"
#include "tests/unit/common/coflow/coflow_fixture.h"

using namespace spiderflow::coflow;

namespace {

SimResult run(const std::string& sched, const Network& net, const Workload& w) {
    auto s = make_scheduler(sched);
    SimOptions o;
    o.check_invariants = true;
    return simulate(net, w, *s, o);
}

// One link of 100 B/s; coflow 1 = 100 B, coflow 2 = 300 B, both at t = 0.
Workload two_on_one_link() {
    Workload w;
    w.coflows.push_back(trace_coflow(1, 0, {{0, 1, 100}}));
    w.coflows.push_back(trace_coflow(2, 0, {{0, 1, 300}}));
    return w;
}

}  // namespace

TEST(Factory, UnknownNameListsKnownOnes) {
    try {
        make_scheduler("nope");
        FAIL() << "expected InputError";
    } catch (const spiderflow::InputError& e) {
        const std::string what = e.what();
        for (const auto& n : {"aalo", "fair", "hermod", "llm", "sincronia", "varys"})
            EXPECT_NE(what.find(n), std::string::npos) << what;
    }
    for (const auto& n : scheduler_names()) EXPECT_EQ(make_scheduler(n)->name(), n);
}

TEST(Fair, SharesEquallyThenGivesTheRest) {
    const Network net = line_network(2, 100);
    const SimResult r = run("fair", net, two_on_one_link());
    // 50 B/s each: coflow 1 done at 2 s; coflow 2 then has 200 B at 100 B/s: 4 s.
    EXPECT_NEAR(cct_of(r, 1), 2.0, 1e-9);
    EXPECT_NEAR(cct_of(r, 2), 4.0, 1e-9);
}

TEST(Varys, SmallestBottleneckFirst) {
    const Network net = line_network(2, 100);
    const SimResult r = run("varys", net, two_on_one_link());
    EXPECT_NEAR(cct_of(r, 1), 1.0, 1e-9);
    EXPECT_NEAR(cct_of(r, 2), 4.0, 1e-9);
}

TEST(Varys, MaddSlowsFlowsThatWouldOnlyWait) {
    // Links 0>1 and 2>3 (100 B/s). Coflow 1: 100 B on 0>1 and 200 B on 2>3 (Gamma 2 s);
    // coflow 2: 300 B on 0>1 (Gamma 3 s). MADD gives coflow 1's short flow 100/2 = 50 B/s,
    // so coflow 2 keeps 50 B/s on 0>1 instead of waiting.
    Network net;
    for (int i = 0; i < 4; ++i) net.add_node("n" + std::to_string(i));
    net.add_duplex(0, 1, 100, 0);
    net.add_duplex(2, 3, 100, 0);
    net.route_widest();
    std::vector<ActiveFlow> flows(3);
    const std::vector<int>& p01 = net.route(0, 1);
    const std::vector<int>& p23 = net.route(2, 3);
    flows[0] = {0, 0, &p01, 100, 100, 0};
    flows[1] = {1, 0, &p23, 200, 200, 0};
    flows[2] = {2, 1, &p01, 300, 300, 0};
    std::vector<ActiveCoflow> coflows(2);
    coflows[0].id = 1;
    coflows[0].flows = {0, 1};
    coflows[1].id = 2;
    coflows[1].flows = {2};
    std::vector<JobProgress> jobs;
    SchedView view{0, &net, &flows, &coflows, &jobs};
    make_scheduler("varys")->allocate(view);
    EXPECT_NEAR(flows[0].rate, 50, 1e-9);
    EXPECT_NEAR(flows[1].rate, 100, 1e-9);
    EXPECT_NEAR(flows[2].rate, 50, 1e-9);
}

TEST(Sincronia, BssiOrderAndCompletionTimes) {
    // Links L1 = 0>1, L2 = 2>3 at 1 B/s. C1: 2 B on L1; C2: 1 B on L1 + 3 B on L2; C3: 2 B on L2.
    // BSSI: bottleneck L2 (5 B): w/d is 1/3 for C2, 1/2 for C3 -> C2 last; C3's weight becomes
    // 1 - 2/3. Then L1 and L2 both carry 2: L1 first -> only C1 -> C1 next to last. Order C3, C1, C2.
    Network net;
    for (int i = 0; i < 4; ++i) net.add_node("n" + std::to_string(i));
    net.add_duplex(0, 1, 1, 0);
    net.add_duplex(2, 3, 1, 0);
    net.route_widest();
    Workload w;
    w.coflows.push_back(trace_coflow(1, 0, {{0, 1, 2}}));
    w.coflows.push_back(trace_coflow(2, 0, {{0, 1, 1}, {2, 3, 3}}));
    w.coflows.push_back(trace_coflow(3, 0, {{2, 3, 2}}));

    std::vector<ActiveFlow> flows(4);
    flows[0] = {0, 0, &net.route(0, 1), 2, 2, 0};
    flows[1] = {1, 1, &net.route(0, 1), 1, 1, 0};
    flows[2] = {2, 1, &net.route(2, 3), 3, 3, 0};
    flows[3] = {3, 2, &net.route(2, 3), 2, 2, 0};
    std::vector<ActiveCoflow> coflows(3);
    coflows[0].flows = {0};
    coflows[1].flows = {1, 2};
    coflows[2].flows = {3};
    for (int i = 0; i < 3; ++i) coflows[i].id = i + 1;
    EXPECT_EQ(bssi_order(flows, coflows, net), (std::vector<int>{2, 0, 1}));

    const SimResult r = run("sincronia", net, w);
    EXPECT_NEAR(cct_of(r, 3), 2.0, 1e-9);
    EXPECT_NEAR(cct_of(r, 1), 2.0, 1e-9);
    EXPECT_NEAR(cct_of(r, 2), 5.0, 1e-9);
}

TEST(Aalo, QueuesByAttainedServiceWithWeightedSharing) {
    EXPECT_EQ(aalo_queue(0), 0);
    EXPECT_EQ(aalo_queue(9.9e6), 0);
    EXPECT_EQ(aalo_queue(10e6), 1);
    EXPECT_EQ(aalo_queue(100e6), 2);
    // 10 MB/s link. C1 = 30 MB at t = 0; C2 = 5 MB at t = 1. By t = 1 C1 has sent 10 MB and
    // dropped to queue 1 (weight 9) while C2 sits in queue 0 (weight 10): C2 gets 10/19 of the
    // link and finishes after 5 / (100/19) = 0.95 s; C1 takes the rest and ends at 35 MB / 10 = 3.5 s.
    const Network net = line_network(2, 10e6);
    Workload w;
    w.coflows.push_back(trace_coflow(1, 0, {{0, 1, 30e6}}));
    w.coflows.push_back(trace_coflow(2, 1, {{0, 1, 5e6}}));
    const SimResult r = run("aalo", net, w);
    EXPECT_NEAR(cct_of(r, 2), 0.95, 1e-6);
    EXPECT_NEAR(cct_of(r, 1), 3.5, 1e-6);
    // Per-flow fairness for comparison: C2 gets 5 MB/s and needs 1 s.
    EXPECT_NEAR(cct_of(run("fair", net, w), 2), 1.0, 1e-6);
}

TEST(Hermod, PriorityRules) {
    auto mk = [](CoflowKind k, int iter, int mb, int layer) {
        ActiveCoflow c;
        c.kind = k;
        c.iteration = iter;
        c.micro_batch = mb;
        c.layer = layer;
        c.job = 0;
        return c;
    };
    const int M = 4;
    EXPECT_TRUE(hermod_precedes(mk(CoflowKind::pp, 0, 0, 8), mk(CoflowKind::pp, 0, 1, 0), M));  // micro-batch first
    EXPECT_TRUE(hermod_precedes(mk(CoflowKind::ep, 0, 1, 8), mk(CoflowKind::pp, 0, 1, 0), M));  // EP above PP
    EXPECT_TRUE(hermod_precedes(mk(CoflowKind::pp, 0, 1, 0), mk(CoflowKind::dp, 0, 1, 0), M));  // PP above DP
    EXPECT_TRUE(hermod_precedes(mk(CoflowKind::pp, 0, 1, 4), mk(CoflowKind::pp, 0, 1, 8), M));  // smaller layer
    // DP of layer 0 (after the last micro-batch, id 3) beats the next iteration's PP of layer 8...
    EXPECT_TRUE(hermod_precedes(mk(CoflowKind::dp, 0, 3, 0), mk(CoflowKind::pp, 1, 0, 8), M));
    // ...but DP of layer 8 does not beat that iteration's PP of layer 4.
    EXPECT_TRUE(hermod_precedes(mk(CoflowKind::pp, 1, 0, 4), mk(CoflowKind::dp, 0, 3, 8), M));
    EXPECT_FALSE(hermod_precedes(mk(CoflowKind::dp, 0, 3, 8), mk(CoflowKind::pp, 1, 0, 4), M));
}

TEST(Hermod, StrictTiersInsideAJobSharedTierAcrossJobs) {
    const Network net = line_network(2, 100);
    // One job, two coflows released together: PP of micro-batch 0 (100 B) and DP (100 B).
    // PP goes first (1 s), DP after (2 s). Fair would finish both at 2 s.
    PeriodicJob j;
    j.name = "a";
    j.micro_batches = 1;
    j.tasks.push_back(coflow_task(CoflowKind::dp, 0, 0, {{0, 1, 100}}, {}));
    j.tasks.push_back(coflow_task(CoflowKind::pp, 0, 4, {{0, 1, 100}}, {}));
    finalize_job(j);
    Workload w;
    w.jobs.push_back(j);
    const SimResult r = run("hermod", net, w);
    ASSERT_EQ(r.coflows.size(), 2u);
    for (const auto& c : r.coflows) EXPECT_NEAR(c.cct_s(), c.kind == CoflowKind::pp ? 1.0 : 2.0, 1e-9);
    const SimResult f = run("fair", net, w);
    for (const auto& c : f.coflows) EXPECT_NEAR(c.cct_s(), 2.0, 1e-9);

    // Two jobs whose rank-0 coflows share one tier: max-min 50/50 as under fair sharing.
    Workload two;
    two.jobs.push_back(compute_then_send("a", 1, 0, 0, 1, 100));
    two.jobs.push_back(compute_then_send("b", 1, 0, 0, 1, 300));
    const SimResult h = run("hermod", net, two);
    EXPECT_NEAR(h.jobs[0].jct_s(), 2.0, 1e-9);
    EXPECT_NEAR(h.jobs[1].jct_s(), 4.0, 1e-9);
}

TEST(Hermod, MatchingAdmitsLargestFlowPerLinkFirst) {
    const Network net = line_network(3, 100);   // links 0>1, 1>2 (and back)
    std::vector<ActiveFlow> flows(3);
    flows[0] = {0, 0, &net.route(0, 1), 50, 50, 0};
    flows[1] = {1, 0, &net.route(0, 1), 80, 80, 0};
    flows[2] = {2, 0, &net.route(1, 2), 10, 10, 0};
    auto [admitted, rest] = greedy_matching(flows, {0, 1, 2}, net.num_links());
    EXPECT_EQ(admitted, (std::vector<int>{1, 2}));
    EXPECT_EQ(rest, (std::vector<int>{0}));
}

TEST(Llm, ShortestRemainingJobFirstInterleavesComputeWindows) {
    // Two jobs, 2 iterations each: compute 1 s, then 100 B over the same 100 B/s link.
    // fair: both send at 50 B/s (t 1..3), compute (3..4), send (4..6): JCT 6 and 6.
    // llm: A sends alone (1..2) while B waits, B sends (2..3) while A computes (2..3), A sends
    // (3..4) while B computes (3..4), B sends (4..5): JCT 4 and 5.
    const Network net = line_network(2, 100);
    Workload w;
    w.jobs.push_back(compute_then_send("a", 2, 1, 0, 1, 100));
    w.jobs.push_back(compute_then_send("b", 2, 1, 0, 1, 100));
    const SimResult f = run("fair", net, w);
    EXPECT_NEAR(f.jobs[0].jct_s(), 6.0, 1e-9);
    EXPECT_NEAR(f.jobs[1].jct_s(), 6.0, 1e-9);
    const SimResult l = run("llm", net, w);
    EXPECT_NEAR(l.jobs[0].jct_s(), 4.0, 1e-9);
    EXPECT_NEAR(l.jobs[1].jct_s(), 5.0, 1e-9);
    EXPECT_NEAR(l.jobs[0].mean_iteration_s(), 2.0, 1e-9);
}

TEST(Llm, FewerRemainingSecondsGoFirst) {
    // A: compute 1 s then 100 B; B: compute 1 s then 300 B; one 100 B/s link.
    // llm serves A first: A ends at 2 s, B at 5 s (fair: 3 s and 5 s).
    const Network net = line_network(2, 100);
    Workload w;
    w.jobs.push_back(compute_then_send("b", 1, 1, 0, 1, 300));
    w.jobs.push_back(compute_then_send("a", 1, 1, 0, 1, 100));
    const SimResult l = run("llm", net, w);
    EXPECT_NEAR(l.jobs[1].jct_s(), 2.0, 1e-9);
    EXPECT_NEAR(l.jobs[0].jct_s(), 5.0, 1e-9);
    const SimResult f = run("fair", net, w);
    EXPECT_NEAR(f.jobs[1].jct_s(), 3.0, 1e-9);
    EXPECT_NEAR(f.jobs[0].jct_s(), 5.0, 1e-9);
}
