// The evaluation's decentralized federations: the figures they are made of, as generator_
// decentralized.cpp says, and DTFM's table as the repository keeps it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "common/topology/dtfm_regions.h"
#include "common/topology/generator.h"
#include "common/util/units.h"

using namespace spiderflow;

TEST(DtfmRegions, TheEmbeddedTableIsTheMeasuredFile) {
    const char* src = std::getenv("SF_SRCDIR");
    std::ifstream in(std::string(src ? src : ".") + "/tests/data/measured/aws-region-links.csv");
    ASSERT_TRUE(in) << "tests/data/measured/aws-region-links.csv";
    std::string line;
    int rows = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#' || line.rfind("region_a", 0) == 0) continue;
        std::stringstream fields(line);
        std::string a, b, latency, gbps;
        std::getline(fields, a, ','), std::getline(fields, b, ','), std::getline(fields, latency, ','), std::getline(fields, gbps);
        const DtfmLink f = dtfm_link(b, a);  // either order
        EXPECT_DOUBLE_EQ(f.latency_ms, std::stod(latency)) << line;
        EXPECT_DOUBLE_EQ(f.gbps, std::stod(gbps)) << line;
        ++rows;
    }
    EXPECT_EQ(rows, 45) << "every pair of the ten regions";
    EXPECT_EQ(dtfm_regions().size(), 10u);
    EXPECT_DOUBLE_EQ(dtfm_link("tokyo", "tokyo").gbps, 2.0);
    EXPECT_THROW(dtfm_link("tokyo", "mumbai"), std::out_of_range);
}

TEST(DecentralizedGenerator, SitesFabricsAndLinksAreWhatTheProfileSays) {
    GeneratorOptions o;
    o.profile = GeneratorOptions::Profile::decentralized;
    o.clusters = 48;
    o.seed = 3;
    const Topology t = generate_topology(o);
    ASSERT_EQ(t.clusters.size(), 48u);
    EXPECT_EQ(t.links.size(), 48u * 47u / 2u) << "every pair of sites linked";
    std::set<std::string> types, regions;
    std::set<int> ratios;
    for (const Cluster& c : t.clusters) {
        EXPECT_GE(c.total_gpus(), 16) << c.name;
        EXPECT_LE(c.total_gpus(), 256) << c.name;
        regions.insert(c.region);
        for (const Node& n : c.nodes) types.insert(n.gpu_type);
        for (const Switch& s : c.switches) {
            if (s.nodes.empty() || s.uplink_Bps == 0) continue;
            double down = 0;
            for (const std::string& name : s.nodes) down += c.nodes[static_cast<size_t>(c.node_index(name))].network_Bps();
            ratios.insert(static_cast<int>(std::lround(down / s.uplink_Bps)));
        }
    }
    EXPECT_EQ(regions.size(), 10u) << "every DTFM region has a site";
    for (const std::string& type : types) EXPECT_TRUE(type == "H100-SXM" || type == "A100-80GB" || type == "V100" || type == "L40S") << type;
    EXPECT_GE(types.size(), 3u);
    for (int r : ratios) EXPECT_TRUE(r == 1 || r == 2 || r == 4) << r;
    EXPECT_GE(ratios.size(), 2u) << "fabrics of more than one oversubscription";
    // A link between two regions is DTFM's figure within the profile's +-10%.
    for (const Link& l : t.links) {
        const DtfmLink f = dtfm_link(t.clusters[static_cast<size_t>(l.a)].region, t.clusters[static_cast<size_t>(l.b)].region);
        EXPECT_NEAR(units::Bps_to_gbps(l.bandwidth_Bps), f.gbps, 0.1 * f.gbps + 1e-3);
        EXPECT_NEAR(l.latency_s * 1000, f.latency_ms, 1e-9);
    }
    const Topology again = generate_topology(o);
    EXPECT_EQ(again.clusters[17].nodes.size(), t.clusters[17].nodes.size()) << "same seed, same federation";
}
