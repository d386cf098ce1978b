// The "slurm" TopologyReader on the shipped fixtures.
#include <gtest/gtest.h>

#include "common/topology/gpu_alias.h"
#include "common/topology/reader.h"
#include "common/topology/slurm_reader.h"
#include "common/util/errors.h"
#include "site_test_util.h"

using namespace spiderflow;

TEST(SlurmReader, GoodFixtureBuildsOneClusterWithItsSwitchTree) {
    auto reader = make_topology_reader("slurm");
    Topology t = reader->read(test::data_path("slurm/good/slurm.conf"));
    EXPECT_TRUE(t.finalized());
    ASSERT_EQ(t.clusters.size(), 1u);
    const Cluster& c = t.clusters[0];
    EXPECT_EQ(c.name, "alpha");
    ASSERT_EQ(c.nodes.size(), 9u);
    EXPECT_EQ(c.total_gpus(), 64);
    EXPECT_TRUE(t.links.empty());
    const Node& g1 = c.nodes[static_cast<size_t>(c.node_index("gpu01"))];
    EXPECT_EQ(g1.gpus, 8);
    EXPECT_EQ(g1.gpu_type, "A100-80GB");  // a100_80gb mapped to the catalog key
    // Leaf switches follow topology.conf, not the alphabetical order of the names.
    EXPECT_EQ(g1.leaf_switch, "leaf1");
    EXPECT_EQ(c.nodes[static_cast<size_t>(c.node_index("gpu02"))].leaf_switch, "leaf2");
    EXPECT_EQ(c.nodes[static_cast<size_t>(c.node_index("gpu07"))].leaf_switch, "leaf1");
    EXPECT_EQ(c.nodes[static_cast<size_t>(c.node_index("gpu08"))].leaf_switch, "leaf2");
    const Node& login = c.nodes[static_cast<size_t>(c.node_index("login1"))];
    EXPECT_EQ(login.gpus, 0);
    EXPECT_EQ(login.leaf_switch, "leaf1");
    ASSERT_EQ(c.switches.size(), 3u);
    EXPECT_EQ(c.switches[2].name, "spine");
    EXPECT_EQ(c.switches[2].switches, (std::vector<std::string>{"leaf1", "leaf2"}));
}

TEST(SlurmReader, ReadTopologyPicksTheReaderFromTheFileName) {
    Topology t = read_topology(test::data_path("slurm/good/slurm.conf"));
    EXPECT_EQ(t.clusters.at(0).name, "alpha");
}

TEST(SlurmReader, GpuTypeFromGresConfOrFeature) {
    slurm::SlurmFiles site;
    site.slurm = slurm::parse_slurm_conf("ClusterName=c\nNodeName=a1 Gres=gpu:4\nNodeName=b1 Gres=gpu:2 Feature=ib,H200\n"
                                         "NodeName=c1 Gres=gpu:1 Feature=ib\n",
                                         "s");
    site.gres = slurm::parse_gres_conf("NodeName=a1 Name=gpu Type=h100_sxm File=/dev/nvidia[0-3]\n", "g");
    Topology t = topology_from_slurm_files(site);
    const Cluster& c = t.clusters[0];
    EXPECT_EQ(c.nodes[0].gpu_type, "H100-SXM");
    EXPECT_EQ(c.nodes[1].gpu_type, "H200");
    EXPECT_EQ(c.nodes[2].gpu_type, "");
}

TEST(SlurmReader, AmbiguousAliasesStayAsWritten) {
    EXPECT_EQ(canonical_gpu_type("a100"), "a100");
    EXPECT_EQ(canonical_gpu_type("H100"), "H100");
    EXPECT_EQ(canonical_gpu_type("NVIDIA A100-SXM4-40GB"), "A100-40GB");
    EXPECT_EQ(canonical_gpu_type("l40s"), "L40S");
    EXPECT_TRUE(looks_like_gpu_type("a100"));
    EXPECT_FALSE(looks_like_gpu_type("ib"));
}

TEST(SlurmReader, UnbuildableConfigsNameFileAndLine) {
    try {
        make_topology_reader("slurm")->parse("NodeName=n1\n", "mem.conf");
        ADD_FAILURE();
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "ClusterName");
    }
    try {
        make_topology_reader("slurm")->parse("ClusterName=c\nNodeName=n1\nNodeName=n[0-2]\n", "mem.conf");
        ADD_FAILURE();
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 3);
        EXPECT_NE(e.problem().find("line 2"), std::string::npos) << e.what();
    }
    // The typo'd switch name: an InputError with topology.conf's line (topo check reports it as a finding).
    try {
        make_topology_reader("slurm")->read(test::data_path("slurm/typo-switch/slurm.conf"));
        ADD_FAILURE();
    } catch (const InputError& e) {
        EXPECT_NE(e.source().find("topology.conf"), std::string::npos);
        EXPECT_EQ(e.line(), 3);
        EXPECT_EQ(e.field(), "Switches");
    }
}
