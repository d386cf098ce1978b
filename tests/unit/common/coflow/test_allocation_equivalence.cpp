// The grouped max-min filling (maxmin_fill) and the register-summed bottleneck_time must give
// exactly what the straightforward ones (*_reference) give: on random small instances directly, and through whole
// simulations of every scheduler (SimOptions::reference_allocation switches the path).
// Exact equality, not a tolerance: the grouped path performs the same floating-point
// operations in the same order, and a drift would show here first.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <sstream>

#include "common/coflow/allocation.h"
#include "common/coflow/schedulers.h"
#include "common/coflow/trace.h"
#include "tests/unit/common/coflow/coflow_fixture.h"

using namespace spiderflow::coflow;

namespace {

// Random flows over the routes of `net` (few endpoints, so many flows share a route), random
// rates already given, a random subset to fill and random residual capacities, some full.
struct Instance {
    std::vector<ActiveFlow> flows;
    std::vector<int> subset;
    std::vector<double> residual;
};

Instance random_instance(const Network& net, std::mt19937_64& rng) {
    Instance in;
    std::uniform_int_distribution<int> node(0, net.num_nodes() - 1);
    std::uniform_int_distribution<int> count(1, 60);
    std::uniform_real_distribution<double> unit(0, 1);
    const int n = count(rng);
    for (int i = 0; i < n; ++i) {
        int a = node(rng), b = node(rng);
        while (b == a || !net.reachable(a, b)) b = node(rng), a = node(rng);
        ActiveFlow f;
        f.id = i;
        f.path = &net.route(a, b);
        f.bytes = f.remaining = 1e6 * (1 + unit(rng));
        f.rate = unit(rng) < 0.3 ? 1e6 * unit(rng) : 0;
        in.flows.push_back(f);
        if (unit(rng) < 0.8) in.subset.push_back(i);
    }
    for (int l = 0; l < net.num_links(); ++l) {
        const double cap = net.link(l).capacity_Bps;
        const double r = unit(rng);
        in.residual.push_back(r < 0.1 ? 0 : r < 0.2 ? cap : cap * unit(rng));
    }
    return in;
}

void expect_same_on(const Instance& in) {
    ASSERT_EQ(bottleneck_time(in.flows, in.subset, in.residual),
              bottleneck_time_reference(in.flows, in.subset, in.residual));
    LinkLoads loads;   // Varys sums once per coflow and asks twice
    link_loads(in.flows, in.subset, loads);
    ASSERT_EQ(bottleneck_time(loads, in.residual), bottleneck_time_reference(in.flows, in.subset, in.residual));
    Instance once = in, twice = in;
    ASSERT_EQ(madd_fill(once.flows, once.subset, loads, once.residual),
              madd_fill(twice.flows, twice.subset, twice.residual));
    for (size_t i = 0; i < in.flows.size(); ++i) ASSERT_EQ(once.flows[i].rate, twice.flows[i].rate) << "flow " << i;
    ASSERT_EQ(once.residual, twice.residual);
    Instance fast = in, ref = in;
    maxmin_fill(fast.flows, fast.subset, fast.residual);
    maxmin_fill_reference(ref.flows, ref.subset, ref.residual);
    for (size_t i = 0; i < in.flows.size(); ++i) ASSERT_EQ(fast.flows[i].rate, ref.flows[i].rate) << "flow " << i;
    for (size_t l = 0; l < in.residual.size(); ++l) ASSERT_EQ(fast.residual[l], ref.residual[l]) << "link " << l;
}

void expect_same_fill(const Network& net, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (int round = 0; round < 200; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        expect_same_on(random_instance(net, rng));
        if (::testing::Test::HasFatalFailure()) return;
    }
}

}  // namespace

TEST(AllocationEquivalence, MatchesReferenceOnABigSwitch) {
    expect_same_fill(Network::big_switch(5, 125e6), 11);
}

TEST(AllocationEquivalence, MatchesReferenceOnMultiHopRoutes) {
    // Routes of two to five links with unequal capacities: bottlenecks in the middle of paths.
    Network net;
    for (int i = 0; i < 6; ++i) net.add_node("n" + std::to_string(i));
    for (int i = 0; i + 1 < 6; ++i) net.add_duplex(i, i + 1, 1e8 * (1 + i % 3), 0);
    net.add_duplex(0, 5, 3e7, 0);
    net.route_widest();
    expect_same_fill(net, 12);
}

TEST(AllocationEquivalence, MatchesReferenceWhenRoutesLieFarApartInMemory) {
    // Copies of the big switch's routes spread over a table far wider than the direct index
    // covers, so routes are told apart by the hash-map fallback.
    const Network net = Network::big_switch(4, 125e6);
    std::vector<std::vector<int>> spread(300000);
    std::mt19937_64 rng(13);
    for (int round = 0; round < 50; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        Instance in = random_instance(net, rng);
        std::map<const std::vector<int>*, size_t> moved;   // flows that shared a route still do
        for (auto& f : in.flows) {
            auto [it, fresh] = moved.emplace(f.path, 0);
            if (fresh) {
                const size_t k = moved.size() - 1;
                // Both ends and the middle of the table.
                const size_t starts[] = {k / 3, spread.size() / 2 + k / 3, spread.size() - 1 - k / 3};
                it->second = starts[k % 3];
                spread[it->second] = *f.path;
            }
            f.path = &spread[it->second];
        }
        expect_same_on(in);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(AllocationEquivalence, ReferenceSwitchIsScopedToTheSimulation) {
    const Network net = line_network(2, 1e6);
    Workload w;
    w.coflows.push_back(trace_coflow(1, 0, {{0, 1, 1e6}}));
    auto s = make_scheduler("fair");
    SimOptions o;
    o.reference_allocation = true;
    simulate(net, w, *s, o);
    EXPECT_FALSE(using_reference_maxmin());
}

// Every scheduler, whole runs: the same completions at the same times along both paths.
class SimulationEquivalence : public ::testing::TestWithParam<std::string> {};

void expect_same_run(const Network& net, const Workload& w, const std::string& scheduler) {
    auto fast_s = make_scheduler(scheduler);
    auto ref_s = make_scheduler(scheduler);
    SimOptions ref_o;
    ref_o.reference_allocation = true;
    const SimResult fast = simulate(net, w, *fast_s);
    const SimResult ref = simulate(net, w, *ref_s, ref_o);
    ASSERT_EQ(fast.coflows.size(), ref.coflows.size());
    for (size_t i = 0; i < fast.coflows.size(); ++i) {
        EXPECT_EQ(fast.coflows[i].id, ref.coflows[i].id) << i;
        EXPECT_EQ(fast.coflows[i].release_s, ref.coflows[i].release_s) << i;
        EXPECT_EQ(fast.coflows[i].finish_s, ref.coflows[i].finish_s) << i;
    }
    ASSERT_EQ(fast.jobs.size(), ref.jobs.size());
    for (size_t j = 0; j < fast.jobs.size(); ++j) {
        EXPECT_EQ(fast.jobs[j].finish_s, ref.jobs[j].finish_s) << j;
        EXPECT_EQ(fast.jobs[j].iteration_end_s, ref.jobs[j].iteration_end_s) << j;
    }
    EXPECT_EQ(fast.stats.flow_events, ref.stats.flow_events);
    EXPECT_EQ(fast.stats.allocations, ref.stats.allocations);
    EXPECT_EQ(fast.stats.bytes_sent, ref.stats.bytes_sent);
    EXPECT_EQ(fast.stats.sim_end_s, ref.stats.sim_end_s);
}

TEST_P(SimulationEquivalence, OnARandomTrace) {
    const GeneratedRun run = generated_run(10, 30, 99, 150);
    expect_same_run(run.network, run.workload, GetParam());
}

TEST_P(SimulationEquivalence, OnJobsSharingALineWithLatency) {
    // Jobs with compute windows and iterations (the schedulers' job-aware paths) plus trace
    // coflows on the same links.
    const Network net = line_network(5, 1e8, 0.002);
    Workload w;
    w.jobs.push_back(compute_then_send("a", 4, 0.05, 0, 4, 4e7));
    w.jobs.push_back(compute_then_send("b", 3, 0.02, 1, 3, 6e7));
    w.jobs.push_back(compute_then_send("c", 5, 0.03, 4, 0, 2e7));
    w.jobs[1].arrival_s = 0.1;
    w.coflows.push_back(trace_coflow(1, 0.05, {{0, 2, 3e7}, {1, 4, 2e7}, {2, 3, 1e7}}));
    w.coflows.push_back(trace_coflow(2, 0.3, {{3, 0, 5e7}, {0, 4, 1e7}, {0, 4, 1e7}}));
    expect_same_run(net, w, GetParam());
}

INSTANTIATE_TEST_SUITE_P(AllSchedulers, SimulationEquivalence, ::testing::ValuesIn(scheduler_names()));
