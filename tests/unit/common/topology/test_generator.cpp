// The synthetic federation generator: deterministic, connected, sparse at scale, in range.
#include <gtest/gtest.h>

#include <set>

#include "common/topology/generator.h"
#include "common/topology/topology_json.h"
#include "common/util/errors.h"
#include "common/util/units.h"

namespace spiderflow {
namespace {

Topology gen(int n, uint64_t seed) {
    GeneratorOptions opt;
    opt.clusters = n;
    opt.seed = seed;
    return generate_topology(opt);
}

TEST(Generator, SameSeedSameTopologyOtherSeedOther) {
    EXPECT_EQ(topology_to_json(gen(24, 3)), topology_to_json(gen(24, 3)));
    EXPECT_NE(topology_to_json(gen(24, 3)), topology_to_json(gen(24, 4)));
}

TEST(Generator, LargestFederationIsDeterministicConnectedAndSparse) {
    const Topology t = gen(1024, 42);
    ASSERT_TRUE(t.finalized());
    ASSERT_EQ(t.clusters.size(), 1024u);
    EXPECT_EQ(topology_to_json(t), topology_to_json(gen(1024, 42)));
    // Connected: every cluster reaches every other.
    int unreachable = 0;
    for (int a = 0; a < 1024; ++a) {
        for (int b = 0; b < 1024; ++b) unreachable += !t.path(a, b).reachable();
    }
    EXPECT_EQ(unreachable, 0);
    // Sparse: far fewer links than a full mesh (523776 pairs).
    EXPECT_LT(t.links.size(), 1024u * 8u);
    // Finalize again from scratch gives the same answers.
    Topology again = t;
    again.finalize("again");
    for (int a = 0; a < 1024; a += 97) {
        for (int b = 0; b < 1024; b += 89) {
            EXPECT_EQ(again.path(a, b).bandwidth_Bps, t.path(a, b).bandwidth_Bps);
            EXPECT_EQ(again.route(a, b), t.route(a, b));
        }
    }
}

TEST(Generator, FiguresAreRealisticAndHeterogeneous) {
    const Topology t = gen(200, 1);
    std::set<std::string> types, names;
    for (const Cluster& c : t.clusters) {
        EXPECT_TRUE(names.insert(c.name).second) << "duplicate " << c.name;
        EXPECT_GE(c.nodes.size(), 2u);
        EXPECT_LE(c.nodes.size(), 16u);
        for (const Node& n : c.nodes) {
            types.insert(n.gpu_type);
            EXPECT_EQ(n.gpus, 8);
            EXPECT_FALSE(n.leaf_switch.empty());
            ASSERT_FALSE(n.nics.empty());
            EXPECT_GE(units::Bps_to_gbps(n.network_Bps()), 200 - 1e-9);
        }
    }
    EXPECT_GE(types.size(), 4u);
    for (const Link& l : t.links) {
        EXPECT_GE(units::Bps_to_gbps(l.bandwidth_Bps), 0.3 - 1e-9);
        EXPECT_LE(units::Bps_to_gbps(l.bandwidth_Bps), 10 + 1e-9);
        EXPECT_GE(units::s_to_ms(l.latency_s), 2 - 1e-9);
        EXPECT_LE(units::s_to_ms(l.latency_s), 250);  // half the globe ~ 200 ms + a few
    }
}

TEST(Generator, SmallFederationsAreFullMeshes) {
    const Topology t = gen(5, 9);
    EXPECT_EQ(t.links.size(), 10u);
    EXPECT_EQ(gen(1, 9).links.size(), 0u);
}

TEST(Generator, RejectsOutOfRangeCounts) {
    EXPECT_THROW(gen(0, 1), InputError);
    EXPECT_THROW(gen(1025, 1), InputError);
}

}  // namespace
}  // namespace spiderflow
