// Simulator invariants: links never above capacity, work conservation, every byte delivered,
// latency added once per flow, job DAGs released in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "common/coflow/schedulers.h"
#include "common/coflow/trace.h"
#include "common/util/errors.h"
#include "tests/unit/common/coflow/coflow_fixture.h"

using namespace spiderflow::coflow;

TEST(Simulator, LatencyIsAddedOnceAfterTheLastByte) {
    const Network net = line_network(3, 100, 0.25);   // 0 > 1 > 2: two hops, 0.5 s
    Workload w;
    w.coflows.push_back(trace_coflow(7, 1.0, {{0, 2, 100}}));
    auto s = make_scheduler("fair");
    const SimResult r = simulate(net, w, *s);
    ASSERT_EQ(r.coflows.size(), 1u);
    EXPECT_NEAR(r.coflows[0].release_s, 1.0, 1e-12);
    EXPECT_NEAR(r.coflows[0].cct_s(), 1.5, 1e-9);
}

TEST(Simulator, EmptyCoflowCompletesAtRelease) {
    const Network net = line_network(2, 100);
    Workload w;
    w.coflows.push_back(trace_coflow(1, 2.0, {{1, 1, 100}}));   // same endpoint: no network traffic
    auto s = make_scheduler("fair");
    const SimResult r = simulate(net, w, *s);
    ASSERT_EQ(r.coflows.size(), 1u);
    EXPECT_DOUBLE_EQ(r.coflows[0].cct_s(), 0.0);
}

TEST(Simulator, UnreachableEndpointIsAnInputError) {
    Network net;
    net.add_node("a");
    net.add_node("b");
    net.add_node("c");
    net.add_duplex(0, 1, 10, 0);
    net.route_widest();
    Workload w;
    w.coflows.push_back(trace_coflow(1, 0, {{0, 2, 5}}));
    auto s = make_scheduler("fair");
    EXPECT_THROW(simulate(net, w, *s), spiderflow::InputError);
}

TEST(Simulator, JobDagRunsInDependencyOrder) {
    // compute 1 s -> coflow 100 B at 100 B/s (1 s) -> compute 0.5 s; 3 iterations chained.
    const Network net = line_network(2, 100);
    PeriodicJob j;
    j.name = "chain";
    j.iterations = 3;
    j.tasks.push_back(compute_task(1.0, {}, {2}));
    j.tasks.push_back(coflow_task(CoflowKind::pp, 0, 0, {{0, 1, 100}}, {0}));
    j.tasks.push_back(compute_task(0.5, {1}));
    finalize_job(j);
    EXPECT_DOUBLE_EQ(j.compute_s_per_iteration, 1.5);
    EXPECT_DOUBLE_EQ(j.wan_bytes_per_iteration, 100);
    Workload w;
    w.jobs.push_back(j);
    auto s = make_scheduler("fair");
    const SimResult r = simulate(net, w, *s);
    ASSERT_EQ(r.jobs[0].iteration_end_s.size(), 3u);
    EXPECT_NEAR(r.jobs[0].iteration_end_s[0], 2.5, 1e-9);
    EXPECT_NEAR(r.jobs[0].iteration_end_s[2], 7.5, 1e-9);
    EXPECT_NEAR(r.jobs[0].jct_s(), 7.5, 1e-9);
}

TEST(Simulator, CyclicJobIsRejected) {
    PeriodicJob j;
    j.name = "loop";
    j.tasks.push_back(compute_task(1.0, {1}));
    j.tasks.push_back(compute_task(1.0, {0}));
    EXPECT_THROW(finalize_job(j), spiderflow::InputError);
}

namespace {

// Bytes through the busiest port of trace coflow `id` on a big switch, in seconds at `port_Bps`:
// what the coflow needs with the switch to itself.
double busiest_port_s(const std::vector<TraceCoflow>& coflows, int id, double port_Bps) {
    std::map<int, double> out, in;
    for (const TraceCoflow& c : coflows) {
        if (c.id != id) continue;
        for (const FlowSpec& f : c.flows) {
            if (f.src == f.dst) continue;
            out[f.src] += f.bytes;
            in[f.dst] += f.bytes;
        }
    }
    double busiest = 0;
    for (const auto* side : {&out, &in})
        for (const auto& [port, bytes] : *side) busiest = std::max(busiest, bytes);
    return busiest / port_Bps;
}

}  // namespace

// Every scheduler on a generated trace: no link above capacity, no idle capacity a waiting flow
// could use, every coflow completes and every byte is sent.
class Invariants : public ::testing::TestWithParam<std::string> {};

TEST_P(Invariants, HoldOnASyntheticTrace) {
    const GeneratedRun run = generated_run(12, 40, 7, 200);
    auto s = make_scheduler(GetParam());
    SimOptions o;
    o.check_invariants = true;
    const SimResult r = simulate(run.network, run.workload, *s, o);
    EXPECT_EQ(r.coflows.size(), run.coflows);
    EXPECT_LE(r.stats.max_link_load, 1.0 + 1e-9);
    EXPECT_GT(r.stats.max_link_load, 0.99);   // something did saturate a port
    EXPECT_EQ(r.stats.work_conservation_violations, 0);
    EXPECT_EQ(r.stats.stalls, 0);
    EXPECT_GT(r.stats.bytes_offered, 0);
    EXPECT_NEAR(r.stats.bytes_sent / r.stats.bytes_offered, 1.0, 1e-9);
    // No coflow finishes before its busiest port could have moved its bytes at line rate, had it
    // had the switch to itself.
    for (const auto& c : r.coflows) {
        const double alone_s = busiest_port_s(run.workload.coflows, c.id, kGeneratedPortBps);
        ASSERT_GT(alone_s, 0) << "coflow " << c.id;
        EXPECT_GE(c.cct_s(), alone_s * (1 - 1e-9)) << "coflow " << c.id;
    }
}

INSTANTIATE_TEST_SUITE_P(AllSchedulers, Invariants, ::testing::ValuesIn(scheduler_names()));

TEST(Simulator, ReportsProgressWhileRunningAndNotAfter) {
    const GeneratedRun run = generated_run(12, 60, 3, 100);
    auto s = make_scheduler("fair");
    SimOptions o;
    o.progress_every_s = 0;   // every 256th pass
    std::vector<SimProgress> seen;
    o.progress = [&](const SimProgress& p) { seen.push_back(p); };
    const SimResult r = simulate(run.network, run.workload, *s, o);
    ASSERT_FALSE(seen.empty());
    for (size_t i = 1; i < seen.size(); ++i) {
        EXPECT_GE(seen[i].sim_s, seen[i - 1].sim_s);
        EXPECT_GE(seen[i].coflows_done, seen[i - 1].coflows_done);
    }
    EXPECT_LE(seen.back().coflows_done, r.coflows.size());
    EXPECT_LE(seen.back().flow_events, r.stats.flow_events);
}
