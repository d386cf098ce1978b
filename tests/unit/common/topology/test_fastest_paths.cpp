// Topology's fastest paths (least summed latency) beside the widest ones, and route_for's choice
// between them.
#include <gtest/gtest.h>

#include <cmath>

#include "common/topology/spiderflow_reader.h"
#include "tests/unit/common/topology/topo_fixture.h"

namespace spiderflow {
namespace {

using test::link;
using test::small_cluster;

TEST(FastestPath, WorldwideFrankfurtIrelandGoesDirectWhileTheWidestDetours) {
    // The direct link is 1.08 Gb/s, 24 ms; the widest route runs via london, virginia and ohio at
    // 1.12 Gb/s and 14 + 76 + 11 + 77 = 178 ms.
    const Topology t = SpiderflowReader().read(test::src_path("contrib/topologies/worldwide-8.json"));
    const int f = t.cluster_index("frankfurt"), i = t.cluster_index("ireland");
    EXPECT_EQ(t.path(f, i, RouteKind::widest).hops, 4);
    EXPECT_NEAR(t.path(f, i, RouteKind::widest).latency_s, units::ms_to_s(178), 1e-12);
    EXPECT_EQ(t.route(f, i, RouteKind::fastest), (std::vector<int>{f, i}));
    EXPECT_NEAR(t.path(f, i, RouteKind::fastest).latency_s, units::ms_to_s(24), 1e-12);
    EXPECT_DOUBLE_EQ(t.path(f, i, RouteKind::fastest).bandwidth_Bps, units::gbps_to_Bps(1.08));
    // One pipeline message of 64 MB is quicker direct (0.50 s against 0.64 s). A DP ring edge
    // moving 10 GB in two messages would be 3.1% quicker on the wider detour (71.8 s against
    // 74.1 s): within the figures' error (kDetourMargin), so it stays direct too.
    EXPECT_EQ(route_for(t, f, i, 64e6, 1), RouteKind::fastest);
    EXPECT_EQ(route_for(t, f, i, 10e9, 2), RouteKind::fastest);
    // Where the two routes agree, either kind is the same route.
    const int o = t.cluster_index("oregon"), h = t.cluster_index("ohio");
    EXPECT_EQ(t.route(o, h, RouteKind::fastest), t.route(o, h, RouteKind::widest));
}

// A detour is taken when it is quicker by more than kDetourMargin, and only then.
TEST(FastestPath, ADetourMustBeQuickerByMoreThanTheMargin) {
    for (double detour_gbps : {1.03, 1.04, 1.2, 2.0}) {
        Topology t;
        for (const char* n : {"a", "b", "relay"}) t.clusters.push_back(small_cluster(n));
        t.links.push_back(link(0, 1, 1.0, 10));            // direct: 1 Gb/s, 10 ms
        t.links.push_back(link(0, 2, detour_gbps, 40));    // detour: wider, 80 ms in all
        t.links.push_back(link(2, 1, detour_gbps, 40));
        t.finalize();
        ASSERT_EQ(t.path(0, 1, RouteKind::widest).hops, 2);
        const double bytes = 10e9;   // bandwidth-bound: 80 s direct
        const double t_direct = 2 * 0.010 + bytes * 8 / 1e9, t_detour = 2 * 0.080 + bytes * 8 / (detour_gbps * 1e9);
        const RouteKind expected =
            t_detour < t_direct * (1 - kDetourMargin) ? RouteKind::widest : RouteKind::fastest;
        EXPECT_EQ(route_for(t, 0, 1, bytes, 2), expected) << detour_gbps << " Gb/s detour";
        EXPECT_EQ(route_for(t, 0, 1, bytes, 2), detour_gbps >= 1.2 ? RouteKind::widest : RouteKind::fastest)
            << detour_gbps;
        // Latency-bound traffic never detours here.
        EXPECT_EQ(route_for(t, 0, 1, 1e6, 1), RouteKind::fastest);
    }
}

TEST(FastestPath, MatchesBruteForceAndRoutesAgreeWithFigures) {
    Topology t;
    for (int i = 0; i < 7; ++i) t.clusters.push_back(small_cluster("c" + std::to_string(i)));
    for (int a = 0; a < 7; ++a)
        for (int b = a + 1; b < 7; ++b) {
            if ((a * 5 + b * 3) % 4 == 0) continue;
            t.links.push_back(link(a, b, 1.0 + (a * 7 + b * 13) % 3, 1.0 + (a * 11 + b * 17) % 23));
        }
    t.finalize();
    for (int a = 0; a < 7; ++a) {
        for (int b = 0; b < 7; ++b) {
            if (a == b) continue;
            // Least latency over all simple paths (ties: wider).
            double best_lat = INFINITY, best_bw = 0;
            test::for_each_simple_path(t, a, b, [&](double bw, double lat) {
                if (lat < best_lat - 1e-15 || (std::fabs(lat - best_lat) <= 1e-15 && bw > best_bw)) {
                    best_lat = lat;
                    best_bw = bw;
                }
            });
            const PathInfo& p = t.path(a, b, RouteKind::fastest);
            EXPECT_NEAR(p.latency_s, best_lat, 1e-12) << a << "->" << b;
            EXPECT_DOUBLE_EQ(p.bandwidth_Bps, best_bw) << a << "->" << b;
            EXPECT_LE(p.latency_s, t.path(a, b).latency_s + 1e-12);
            EXPECT_GE(t.path(a, b).bandwidth_Bps, p.bandwidth_Bps);
            const std::vector<int> r = t.route(a, b, RouteKind::fastest);
            ASSERT_EQ(static_cast<int>(r.size()) - 1, p.hops);
            EXPECT_EQ(r.front(), a);
            EXPECT_EQ(r.back(), b);
            double lat = 0;
            for (int l : t.route_links(a, b, RouteKind::fastest)) {
                ASSERT_GE(l, 0);
                lat += t.links[static_cast<size_t>(l)].latency_s;
            }
            EXPECT_NEAR(lat, p.latency_s, 1e-12);
        }
    }
    // Unreachable and self pairs as for the widest.
    Topology apart;
    apart.clusters = {small_cluster("x"), small_cluster("y")};
    apart.finalize();
    EXPECT_FALSE(apart.path(0, 1, RouteKind::fastest).reachable());
    EXPECT_TRUE(apart.route(0, 1, RouteKind::fastest).empty());
    EXPECT_EQ(apart.route(1, 1, RouteKind::fastest), (std::vector<int>{1}));
    EXPECT_EQ(route_for(apart, 0, 1, 1e6, 1), RouteKind::widest);
}

}  // namespace
}  // namespace spiderflow
