// Topology::finalize: widest paths, latency tie-break, routes, unreachable pairs, bad links.
#include <gtest/gtest.h>

#include <cmath>

#include "common/util/errors.h"
#include "tests/unit/common/topology/topo_fixture.h"

namespace spiderflow {
namespace {

using test::link;
using test::small_cluster;

Topology clusters(int n) {
    Topology t;
    for (int i = 0; i < n; ++i) t.clusters.push_back(small_cluster("c" + std::to_string(i)));
    return t;
}

TEST(WidestPath, TwoHopWiderRouteBeatsThinDirectLink) {
    Topology t = clusters(3);
    t.links = {link(0, 2, 0.1, 5), link(0, 1, 2, 10), link(1, 2, 1, 20)};
    t.finalize();
    const PathInfo& p = t.path(0, 2);
    EXPECT_DOUBLE_EQ(p.bandwidth_Bps, units::gbps_to_Bps(1));  // bottleneck of the 2-hop route
    EXPECT_DOUBLE_EQ(p.latency_s, units::ms_to_s(30));        // summed latency
    EXPECT_EQ(p.hops, 2);
    EXPECT_EQ(t.route(0, 2), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(t.route(2, 0), (std::vector<int>{2, 1, 0}));
    EXPECT_DOUBLE_EQ(t.path(2, 0).bandwidth_Bps, p.bandwidth_Bps);
    // Direct links that are the widest stay direct.
    EXPECT_EQ(t.route(0, 1), (std::vector<int>{0, 1}));
    EXPECT_EQ(t.path(0, 1).hops, 1);
}

TEST(WidestPath, EqualBandwidthPrefersLowerLatency) {
    // Two routes 0->3 with the same 1 Gbps bottleneck; via 2 is faster.
    Topology t = clusters(4);
    t.links = {link(0, 1, 1, 50), link(1, 3, 1, 50), link(0, 2, 1, 10), link(2, 3, 1, 10)};
    t.finalize();
    EXPECT_EQ(t.route(0, 3), (std::vector<int>{0, 2, 3}));
    EXPECT_DOUBLE_EQ(t.path(0, 3).latency_s, units::ms_to_s(20));
}

TEST(WidestPath, TieBreakIsExactWhereGreedyDijkstraIsNot) {
    // 0->1 directly is wide but slow (10 Gbps, 100 ms); 0->2->1 is narrower but fast
    // (5 Gbps, 2 ms). To reach 3 everything passes the 5 Gbps link 1-3, so both routes tie on
    // bandwidth and the fast one must win, although the best route to 1 alone is the slow one.
    Topology t = clusters(4);
    t.links = {link(0, 1, 10, 100), link(0, 2, 5, 1), link(2, 1, 5, 1), link(1, 3, 5, 1)};
    t.finalize();
    EXPECT_EQ(t.route(0, 1), (std::vector<int>{0, 1}));
    EXPECT_DOUBLE_EQ(t.path(0, 3).bandwidth_Bps, units::gbps_to_Bps(5));
    EXPECT_DOUBLE_EQ(t.path(0, 3).latency_s, units::ms_to_s(3));
    EXPECT_EQ(t.route(0, 3), (std::vector<int>{0, 2, 1, 3}));
    EXPECT_EQ(t.route(3, 0), (std::vector<int>{3, 1, 2, 0}));
}

TEST(WidestPath, UnreachablePairs) {
    Topology t = clusters(4);
    t.links = {link(0, 1, 1, 10), link(2, 3, 1, 10)};
    t.finalize();
    EXPECT_FALSE(t.path(0, 2).reachable());
    EXPECT_EQ(t.path(1, 3).bandwidth_Bps, 0);
    EXPECT_TRUE(std::isinf(t.path(1, 3).latency_s));
    EXPECT_TRUE(t.route(0, 3).empty());
    EXPECT_TRUE(t.path(2, 3).reachable());
}

TEST(WidestPath, SelfPathIsFreeAndRouteIsTheCluster) {
    Topology t = clusters(2);
    t.links = {link(0, 1, 1, 10)};
    t.finalize();
    EXPECT_TRUE(t.path(1, 1).reachable());
    EXPECT_EQ(t.path(1, 1).latency_s, 0);
    EXPECT_EQ(t.path(1, 1).hops, 0);
    EXPECT_EQ(t.route(1, 1), (std::vector<int>{1}));
}

TEST(WidestPath, MatchesBruteForceAndRoutesAgreeWithFigures) {
    // Partial mesh with few distinct bandwidths, so many ties need the latency rule.
    Topology t = clusters(7);
    for (int a = 0; a < 7; ++a) {
        for (int b = a + 1; b < 7; ++b) {
            if ((a * 5 + b * 3) % 4 == 0) continue;  // leave some pairs without a direct link
            t.links.push_back(link(a, b, 1.0 + (a * 7 + b * 13) % 3, 1.0 + (a * 11 + b * 17) % 23));
        }
    }
    t.finalize();
    for (int a = 0; a < 7; ++a) {
        for (int b = 0; b < 7; ++b) {
            if (a == b) continue;
            // Best (bandwidth, then latency) over all simple paths.
            double best_bw = 0, best_lat = INFINITY;
            test::for_each_simple_path(t, a, b, [&](double bw, double lat) {
                if (bw > best_bw || (bw == best_bw && lat < best_lat)) {
                    best_bw = bw;
                    best_lat = lat;
                }
            });
            EXPECT_DOUBLE_EQ(t.path(a, b).bandwidth_Bps, best_bw) << a << "->" << b;
            EXPECT_NEAR(t.path(a, b).latency_s, best_lat, 1e-12) << a << "->" << b;
            // The stored route has exactly the reported figures.
            const auto r = t.route(a, b);
            ASSERT_GE(r.size(), 2u);
            EXPECT_EQ(r.front(), a);
            EXPECT_EQ(r.back(), b);
            double bottleneck = INFINITY, lat = 0;
            for (size_t k = 0; k + 1 < r.size(); ++k) {
                bool found = false;
                for (const Link& l : t.links) {
                    if ((l.a == r[k] && l.b == r[k + 1]) || (l.b == r[k] && l.a == r[k + 1])) {
                        bottleneck = std::min(bottleneck, l.bandwidth_Bps);
                        lat += l.latency_s;
                        found = true;
                    }
                }
                EXPECT_TRUE(found) << "route uses a missing link " << r[k] << "-" << r[k + 1];
            }
            EXPECT_DOUBLE_EQ(bottleneck, t.path(a, b).bandwidth_Bps) << a << "->" << b;
            EXPECT_NEAR(lat, t.path(a, b).latency_s, 1e-12) << a << "->" << b;
            EXPECT_EQ(static_cast<int>(r.size()) - 1, t.path(a, b).hops);
        }
    }
}

TEST(Finalize, RejectsBadLinksNamingThem) {
    auto expect_field = [](std::vector<Link> links, const std::string& field) {
        Topology t = clusters(3);
        t.links = std::move(links);
        try {
            t.finalize("mem");
            ADD_FAILURE() << "no error for " << field;
        } catch (const InputError& e) {
            EXPECT_EQ(e.field(), field) << e.what();
            EXPECT_EQ(e.source(), "mem");
        }
    };
    expect_field({link(0, 1, 1, 1), link(0, 7, 1, 1)}, "links[1].b");
    expect_field({link(-1, 1, 1, 1)}, "links[0].a");
    expect_field({link(2, 2, 1, 1)}, "links[0]");
    expect_field({link(0, 1, 0, 1)}, "links[0].gbps");
    expect_field({link(0, 1, -3, 1)}, "links[0].gbps");
    expect_field({link(0, 1, 1, -1)}, "links[0].latency_ms");
    expect_field({link(0, 1, 1, 1), link(1, 0, 2, 1)}, "links[1]");
}

TEST(Finalize, RejectsDuplicateNamesAndBadSwitchReferences) {
    Topology t = clusters(2);
    t.clusters[1].name = "c0";
    EXPECT_THROW(t.finalize(), InputError);

    Topology s = clusters(1);
    s.clusters[0].nodes[0].leaf_switch = "nowhere";
    try {
        s.finalize();
        ADD_FAILURE();
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "clusters[0].nodes[0].switch");
    }
    Topology u = clusters(1);
    u.clusters[0].switches.push_back(Switch{"spine", {"leaf9"}, {}, 0});
    try {
        u.finalize();
        ADD_FAILURE();
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "clusters[0].switches[0].switches[0]");
    }
}

TEST(TopologyBasics, CountsAndIndexes) {
    Topology t = clusters(2);
    t.clusters[1].nodes.push_back(t.clusters[1].nodes[0]);
    t.clusters[1].nodes.back().name = "extra";
    t.clusters[1].nodes.back().gpus = 4;
    t.clusters[1].nodes.back().nvlink_domain_size = 4;
    t.clusters[1].nodes.back().nics = {Nic{"mlx5_0", "ib", units::gbps_to_Bps(200), 0},
                                       Nic{"mlx5_1", "ib", units::gbps_to_Bps(200), 1}};
    t.finalize();
    EXPECT_EQ(t.total_gpus(), 20);
    EXPECT_EQ(t.clusters[1].total_gpus(), 12);
    EXPECT_EQ(t.clusters[1].node_index("extra"), 1);
    EXPECT_EQ(t.clusters[1].node_index("missing"), -1);
    EXPECT_EQ(t.cluster_index("c1"), 1);
    EXPECT_EQ(t.cluster_index("c9"), -1);
    EXPECT_DOUBLE_EQ(t.clusters[1].nodes[1].network_Bps(), units::gbps_to_Bps(400));
}

}  // namespace
}  // namespace spiderflow
