// Writer -> reader round trip, and the shipped example topologies.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/topology/generator.h"
#include "common/topology/spiderflow_reader.h"
#include "common/topology/topology_json.h"
#include "common/util/errors.h"
#include "tests/unit/common/topology/topo_fixture.h"

namespace spiderflow {
namespace {

void expect_same(const Topology& x, const Topology& y) {
    ASSERT_EQ(x.clusters.size(), y.clusters.size());
    EXPECT_EQ(x.name, y.name);
    for (size_t i = 0; i < x.clusters.size(); ++i) {
        const Cluster& a = x.clusters[i];
        const Cluster& b = y.clusters[i];
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.region, b.region);
        EXPECT_DOUBLE_EQ(a.intra_bandwidth_Bps, b.intra_bandwidth_Bps);
        EXPECT_DOUBLE_EQ(a.intra_latency_s, b.intra_latency_s);
        ASSERT_EQ(a.nodes.size(), b.nodes.size()) << a.name;
        for (size_t k = 0; k < a.nodes.size(); ++k) {
            const Node& m = a.nodes[k];
            const Node& n = b.nodes[k];
            EXPECT_EQ(m.name, n.name);
            EXPECT_EQ(m.gpu_type, n.gpu_type);
            EXPECT_EQ(m.gpus, n.gpus);
            EXPECT_EQ(m.nvlink_domain_size, n.nvlink_domain_size);
            EXPECT_EQ(m.leaf_switch, n.leaf_switch);
            EXPECT_DOUBLE_EQ(m.network_Bps(), n.network_Bps());
            ASSERT_EQ(m.nics.size(), n.nics.size());
            for (size_t q = 0; q < m.nics.size(); ++q) {
                EXPECT_EQ(m.nics[q].name, n.nics[q].name);
                EXPECT_EQ(m.nics[q].kind, n.nics[q].kind);
                EXPECT_EQ(m.nics[q].numa, n.nics[q].numa);
            }
            ASSERT_EQ(m.gpu_slots.size(), n.gpu_slots.size());
            for (size_t q = 0; q < m.gpu_slots.size(); ++q) {
                EXPECT_EQ(m.gpu_slots[q].numa, n.gpu_slots[q].numa);
                EXPECT_EQ(m.gpu_slots[q].nvlink_domain, n.gpu_slots[q].nvlink_domain);
                EXPECT_EQ(m.gpu_slots[q].nearest_nic, n.gpu_slots[q].nearest_nic);
            }
        }
        ASSERT_EQ(a.switches.size(), b.switches.size());
        for (size_t k = 0; k < a.switches.size(); ++k) {
            EXPECT_EQ(a.switches[k].name, b.switches[k].name);
            EXPECT_EQ(a.switches[k].switches, b.switches[k].switches);
            EXPECT_EQ(a.switches[k].nodes, b.switches[k].nodes);
            EXPECT_DOUBLE_EQ(a.switches[k].uplink_Bps, b.switches[k].uplink_Bps);
        }
    }
    ASSERT_EQ(x.links.size(), y.links.size());
    for (size_t i = 0; i < x.links.size(); ++i) {
        EXPECT_EQ(x.links[i].a, y.links[i].a);
        EXPECT_EQ(x.links[i].b, y.links[i].b);
        EXPECT_DOUBLE_EQ(x.links[i].bandwidth_Bps, y.links[i].bandwidth_Bps);
        EXPECT_DOUBLE_EQ(x.links[i].latency_s, y.links[i].latency_s);
    }
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

TEST(RoundTrip, HandBuiltTopologyWithSlotsAndOddNames) {
    using test::link;
    Topology t;
    t.name = "rt";
    t.clusters.push_back(test::small_cluster("a", 3, "H100-SXM"));  // a-n0..a-n2: a group
    t.clusters.push_back(test::small_cluster("b", 1));
    t.clusters[0].region = "eu";
    t.clusters[0].intra_bandwidth_Bps = units::gbps_to_Bps(400);
    t.clusters[0].intra_latency_s = units::us_to_s(3);
    Node odd;
    odd.name = "login";
    t.clusters[0].nodes.push_back(odd);
    Node& n = t.clusters[1].nodes[0];
    n.nics = {Nic{"mlx5_0", "ib", units::gbps_to_Bps(200), 1}};
    for (int g = 0; g < 8; ++g) n.gpu_slots.push_back(GpuSlot{g, g / 4, 0, g < 4 ? "mlx5_0" : ""});
    Switch leaf{"leaf1", {}, {"a-n0", "a-n1"}, units::gbps_to_Bps(800)};
    t.clusters[0].nodes[0].leaf_switch = t.clusters[0].nodes[1].leaf_switch = "leaf1";
    t.clusters[0].switches = {leaf, Switch{"spine", {"leaf1"}, {}, 0}};
    t.links = {link(0, 1, 0.79, 67)};
    t.finalize();
    const std::string text = topology_to_json(t);
    const Topology back = parse_spiderflow_topology(text, "rt.json");
    expect_same(t, back);
    // Writing again gives the same text: the format has one spelling per topology.
    EXPECT_EQ(topology_to_json(back), text);
    EXPECT_NE(text.find("\"gbps\": 0.79,"), std::string::npos) << "figures are written tidily";
}

TEST(RoundTrip, GeneratedTopologyThroughAFile) {
    GeneratorOptions opt;
    opt.clusters = 40;
    opt.seed = 7;
    const Topology t = generate_topology(opt);
    const std::string path = testing::TempDir() + "sf_roundtrip_topology.json";
    write_topology_file(t, path);
    const Topology back = SpiderflowReader().read(path);
    std::remove(path.c_str());
    expect_same(t, back);
    // The generator names its nodes so that they compress into node groups.
    EXPECT_NE(topology_to_json(t).find("name_prefix"), std::string::npos);
}

TEST(Examples, ShippedTopologiesLoad) {
    struct Expect {
        const char* file;
        size_t clusters;
        size_t links;
    };
    for (const Expect& e : {Expect{"worldwide-8.json", 8, 28}, Expect{"aws-4.json", 4, 6},
                            Expect{"two-sites-thin-link.json", 2, 1}}) {
        const std::string path = test::src_path(std::string("contrib/topologies/") + e.file);
        SCOPED_TRACE(path);
        const Topology t = SpiderflowReader().read(path);
        EXPECT_EQ(t.clusters.size(), e.clusters);
        EXPECT_EQ(t.links.size(), e.links);
        EXPECT_GT(t.total_gpus(), 0);
        for (size_t a = 0; a < t.clusters.size(); ++a) {
            for (size_t b = 0; b < t.clusters.size(); ++b) {
                EXPECT_TRUE(t.path(static_cast<int>(a), static_cast<int>(b)).reachable());
            }
            for (const Node& n : t.clusters[a].nodes) EXPECT_EQ(n.gpus, 8);
        }
        // Round trip of a shipped file keeps everything.
        expect_same(t, parse_spiderflow_topology(topology_to_json(t), "again"));
    }
}

TEST(Examples, Aws4RoutesOregonLondonOverThreeWiderHops) {
    // DTFM figures: oregon-london direct is 0.42 Gbps; oregon-ohio 1.10, ohio-virginia 1.12 and
    // virginia-london 1.16 Gbps make a 1.10 Gbps route (49 + 11 + 76 ms), wider than both the
    // direct link and the two-hop routes via ohio (1.05) or virginia (0.79).
    const Topology t = SpiderflowReader().read(test::src_path("contrib/topologies/aws-4.json"));
    const int o = t.cluster_index("oregon"), l = t.cluster_index("london"), h = t.cluster_index("ohio"),
              v = t.cluster_index("virginia");
    EXPECT_EQ(t.route(o, l), (std::vector<int>{o, h, v, l}));
    EXPECT_DOUBLE_EQ(t.path(o, l).bandwidth_Bps, units::gbps_to_Bps(1.10));
    EXPECT_NEAR(t.path(o, l).latency_s, units::ms_to_s(49 + 11 + 76), 1e-12);
    EXPECT_EQ(t.path(o, l).hops, 3);
}

TEST(Examples, WorldwideLinksMatchTheMeasuredCsv) {
    // Every link of worldwide-8.json equals the row of the DTFM table it was copied from.
    const Topology t = SpiderflowReader().read(test::src_path("contrib/topologies/worldwide-8.json"));
    std::istringstream csv(slurp(test::src_path("tests/data/measured/aws-region-links.csv")));
    ASSERT_FALSE(csv.str().empty()) << "the measured table ships in tests/data/measured";
    std::string line;
    int matched = 0;
    while (std::getline(csv, line)) {
        if (line.empty() || line[0] == '#' || line.rfind("region_a", 0) == 0) continue;
        std::stringstream row(line);
        std::string a, b, lat, bw;
        std::getline(row, a, ',');
        std::getline(row, b, ',');
        std::getline(row, lat, ',');
        std::getline(row, bw, ',');
        const int ia = t.cluster_index(a), ib = t.cluster_index(b);
        if (ia < 0 || ib < 0) continue;
        for (const Link& l : t.links) {
            if ((l.a == ia && l.b == ib) || (l.a == ib && l.b == ia)) {
                EXPECT_DOUBLE_EQ(l.bandwidth_Bps, units::gbps_to_Bps(std::stod(bw))) << line;
                EXPECT_DOUBLE_EQ(l.latency_s, units::ms_to_s(std::stod(lat))) << line;
                ++matched;
            }
        }
    }
    EXPECT_EQ(matched, 28);
}

}  // namespace
}  // namespace spiderflow
