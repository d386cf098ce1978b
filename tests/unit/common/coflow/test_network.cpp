// The simulator's network built from a topology follows the topology's widest paths.
#include <gtest/gtest.h>

#include "common/coflow/network.h"
#include "common/coflow/schedulers.h"
#include "common/topology/topology.h"
#include "common/util/errors.h"
#include "tests/unit/common/coflow/coflow_fixture.h"

using namespace spiderflow::coflow;

TEST(Network, FromTopologyUsesWidestPaths) {
    const spiderflow::Topology t = clusters_and_links(
        "tri", {"a", "b", "c"}, {{0, 1, 10e9 / 8, 0.010}, {1, 2, 10e9 / 8, 0.020}, {0, 2, 1e9 / 8, 0.005}});
    const Network net = Network::from_topology(t);
    EXPECT_EQ(net.num_nodes(), 3);
    EXPECT_EQ(net.num_links(), 6);
    const auto& r = net.route(0, 2);
    ASSERT_EQ(r.size(), 2u);   // a > b > c (10 Gbps) beats the direct 1 Gbps link
    EXPECT_EQ(net.link(r[0]).from, 0);
    EXPECT_EQ(net.link(r[1]).to, 2);
    EXPECT_NEAR(net.route_latency_s(0, 2), 0.030, 1e-12);
    EXPECT_TRUE(net.route(1, 1).empty());
    // The network's own widest-path routing agrees.
    Network own;
    for (const char* n : {"a", "b", "c"}) own.add_node(n);
    own.add_duplex(0, 1, 10e9 / 8, 0.010);
    own.add_duplex(1, 2, 10e9 / 8, 0.020);
    own.add_duplex(0, 2, 1e9 / 8, 0.005);
    own.route_widest();
    EXPECT_EQ(own.route(0, 2).size(), 2u);
}

TEST(Network, UnfinalizedTopologyIsRefused) {
    spiderflow::Topology t;
    EXPECT_THROW(Network::from_topology(t), spiderflow::InputError);
}

TEST(Llm, KnownPeriodOrdersJobsByRemainingTime) {
    // Same traffic, but job "long" declares 10x the period: "short" goes first.
    const Network net = line_network(2, 100);
    Workload w;
    w.jobs.push_back(compute_then_send("long", 1, 1, 0, 1, 100));
    w.jobs.push_back(compute_then_send("short", 1, 1, 0, 1, 100));
    w.jobs[0].period_s = 20;
    w.jobs[1].period_s = 2;
    auto s = make_scheduler("llm");
    const SimResult r = simulate(net, w, *s);
    EXPECT_NEAR(r.jobs[1].jct_s(), 2.0, 1e-9);
    EXPECT_NEAR(r.jobs[0].jct_s(), 3.0, 1e-9);
    // measure_period: compute 1 s + 100 B at 100 B/s alone.
    EXPECT_NEAR(measure_period(net, w.jobs[0]), 2.0, 1e-9);
}
