// Site-config and topology checks: each fires on a crafted bad config, none on the good one.
#include <gtest/gtest.h>

#include "common/topology/checks.h"
#include "common/topology/slurm_conf.h"
#include "common/topology/slurm_reader.h"
#include "site_test_util.h"

using namespace spiderflow;
using test::dump;
using test::matching;

namespace {

std::vector<Finding> check_fixture(const std::string& dir) {
    return check_slurm_files(slurm::load_slurm_files(test::data_path("slurm/" + dir + "/slurm.conf")));
}

// slurm.conf / gres.conf / topology.conf texts in memory.
std::vector<Finding> check_texts(const std::string& slurm_conf, const std::string& gres_conf, const std::string& topology_conf) {
    slurm::SlurmFiles site;
    site.slurm = slurm::parse_slurm_conf(slurm_conf, "slurm.conf");
    if (!gres_conf.empty()) site.gres = slurm::parse_gres_conf(gres_conf, "gres.conf");
    if (!topology_conf.empty()) site.topology = slurm::parse_topology_conf(topology_conf, "topology.conf");
    return check_slurm_files(site);
}

const std::string kNodes = "ClusterName=c\nGresTypes=gpu\nNodeName=n[1-4] Gres=gpu:h200:4\n";
const std::string kGres = "NodeName=n[1-4] Name=gpu Type=h200 File=/dev/nvidia[0-3]\n";
const std::string kTree = "SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4]\nSwitchName=top Switches=s[1-2]\n";

}  // namespace

TEST(SiteChecks, GoodFixtureAndInMemoryBaselineAreClean) {
    auto f = check_fixture("good");
    EXPECT_TRUE(f.empty()) << dump(f);
    auto g = check_texts(kNodes, kGres, kTree);
    EXPECT_TRUE(g.empty()) << dump(g);
    // And the Topology built from it passes the topology checks too.
    auto t = check_topology(topology_from_slurm_files(slurm::load_slurm_files(test::data_path("slurm/good/slurm.conf"))));
    EXPECT_TRUE(t.empty()) << dump(t);
}

TEST(SiteChecks, NodesMissingFromTopologyConfAndTheReverse) {
    auto f = check_fixture("missing-node");
    auto missing = matching(f, "node gpu08", "under no switch");
    ASSERT_EQ(missing.size(), 1u) << dump(f);
    EXPECT_NE(missing[0].fix.find("Nodes="), std::string::npos);
    auto extra = matching(f, "node gpu09", "not defined");
    ASSERT_EQ(extra.size(), 1u) << dump(f);
    EXPECT_NE(extra[0].where.find("topology.conf:2"), std::string::npos) << extra[0].where;
    EXPECT_NE(extra[0].fix.find("gpu08"), std::string::npos) << "should suggest the near name: " << extra[0].fix;
}

TEST(SiteChecks, TypoInSwitchNameShowsDisconnectedTrees) {
    auto f = check_fixture("typo-switch");
    auto undefined = matching(f, "switch spine", "leaf-O2");
    ASSERT_EQ(undefined.size(), 1u) << dump(f);
    EXPECT_NE(undefined[0].fix.find("did you mean 'leaf-02'"), std::string::npos) << undefined[0].fix;
    EXPECT_NE(undefined[0].where.find("topology.conf:3"), std::string::npos);
    auto roots = matching(f, "switches", "top-level switches");
    ASSERT_EQ(roots.size(), 1u) << dump(f);
    EXPECT_NE(roots[0].what.find("leaf-02"), std::string::npos);
    EXPECT_NE(roots[0].what.find("spine"), std::string::npos);
}

TEST(SiteChecks, SwitchReachingNoNode) {
    auto f = check_fixture("empty-switch");
    ASSERT_EQ(matching(f, "switch leaf3", "reaches no node", Severity::warning).size(), 1u) << dump(f);
    EXPECT_EQ(test::matching(f, "", "top-level").size(), 0u) << "a stray switch disconnects nothing:\n" << dump(f);
}

TEST(SiteChecks, GpuCountsThatDisagreeWithGresConf) {
    auto f = check_fixture("gres-mismatch");
    auto count = matching(f, "gpu05", "gives 4 GPU devices");
    ASSERT_EQ(count.size(), 1u) << dump(f);
    EXPECT_NE(count[0].what.find("gpu08"), std::string::npos) << "nodes of one line are grouped: " << count[0].what;
    EXPECT_EQ(matching(f, "gpu01").size(), 0u) << "8 files for 8 GPUs is right:\n" << dump(f);
    auto cnt = matching(f, "gres.conf", "Count=6 but File= lists 8");
    ASSERT_EQ(cnt.size(), 1u) << dump(f);
    EXPECT_NE(cnt[0].where.find("gres.conf:2"), std::string::npos) << cnt[0].where;
    EXPECT_EQ(matching(f, "node gpu99", "not defined in slurm.conf", Severity::warning).size(), 1u) << dump(f);
}

TEST(SiteChecks, GresCountAndTypeMismatchesInMemory) {
    auto f = check_texts(kNodes, "NodeName=n[1-4] Name=gpu Type=h200 File=/dev/nvidia[0-3] Count=2\n", kTree);
    EXPECT_EQ(matching(f, "gres.conf", "Count=2 but File= lists 4").size(), 1u) << dump(f);
    f = check_texts(kNodes, "NodeName=n[1-4] Name=gpu Type=a100 File=/dev/nvidia[0-3]\n", kTree);
    EXPECT_EQ(matching(f, "nodes n1, n2, n3, n4", "types disagree").size(), 1u) << dump(f);
    f = check_texts(kNodes, "NodeName=n[1-2] Name=gpu Type=h200 File=/dev/nvidia[0-3]\n", kTree);
    EXPECT_EQ(matching(f, "nodes n3, n4", "lists no GPU device").size(), 1u) << dump(f);
    f = check_texts(kNodes, "AutoDetect=nvml\n", kTree);
    EXPECT_TRUE(f.empty()) << "AutoDetect finds the devices itself:\n" << dump(f);
    f = check_texts("ClusterName=c\nGresTypes=gpu\nNodeName=n[1-4]\n", kGres, kTree);
    EXPECT_EQ(matching(f, "n1", "declares no Gres=gpu", Severity::warning).size(), 1u) << dump(f);
    f = check_texts("ClusterName=c\nNodeName=n[1-4] Gres=gpu:h200:4\n", kGres, kTree);
    EXPECT_EQ(matching(f, "GresTypes", "does not list gpu").size(), 1u) << dump(f);
}

TEST(SiteChecks, TreeShapes) {
    // A loop between two switches.
    auto f = check_texts(kNodes, kGres, "SwitchName=s1 Nodes=n[1-4] Switches=s2\nSwitchName=s2 Switches=s1\n");
    EXPECT_GE(matching(f, "switch s", "loop").size(), 1u) << dump(f);
    // A switch listing itself.
    f = check_texts(kNodes, kGres, "SwitchName=s1 Nodes=n[1-4] Switches=s1\n");
    EXPECT_EQ(matching(f, "switch s1", "itself").size(), 1u) << dump(f);
    // Two top switches, each with nodes: a tier that disconnects the tree.
    f = check_texts(kNodes, kGres, "SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4]\n");
    auto roots = matching(f, "switches s1, s2", "2 top-level switches");
    ASSERT_EQ(roots.size(), 1u) << dump(f);
    EXPECT_NE(roots[0].fix.find("SwitchName=top Switches=s1,s2"), std::string::npos) << roots[0].fix;
    // A node under two leaves; a switch defined twice.
    f = check_texts(kNodes, kGres, "SwitchName=s1 Nodes=n[1-3]\nSwitchName=s2 Nodes=n[3-4]\nSwitchName=top Switches=s[1-2]\n");
    EXPECT_EQ(matching(f, "node n3", "several switches", Severity::warning).size(), 1u) << dump(f);
    f = check_texts(kNodes, kGres, kTree + "SwitchName=s1 Nodes=n1\n");
    EXPECT_EQ(matching(f, "switch s1", "defined twice").size(), 1u) << dump(f);
}

TEST(SiteChecks, SlurmConfOnItsOwn) {
    auto f = check_texts("NodeName=n1\n", "", "");
    EXPECT_EQ(matching(f, "ClusterName").size(), 1u) << dump(f);
    f = check_texts("ClusterName=c\nNodeName=n[1-2]\nNodeName=n2\n", "", "");
    EXPECT_EQ(matching(f, "node n2", "defined twice").size(), 1u) << dump(f);
    f = check_texts("ClusterName=c\nNodeName=n[1-2]\nPartitionName=p Nodes=n[1-3]\n", "", "");
    auto part = matching(f, "node n3", "PartitionName=p");
    ASSERT_EQ(part.size(), 1u) << dump(f);
    EXPECT_EQ(part[0].where, "slurm.conf:3");
    f = check_texts("ClusterName=c\nNodeName=n[1-2]\n", "", "");
    EXPECT_EQ(matching(f, "topology.conf", "flat network", Severity::warning).size(), 1u) << dump(f);
    f = check_texts("ClusterName=c\nTopologyPlugin=topology/tree\nNodeName=n[1-2]\n", "", "");
    EXPECT_EQ(matching(f, "topology.conf", "no topology.conf").size(), 1u) << dump(f);
    f = check_texts("ClusterName=c\nInclude nodes.conf\nNodeName=n1\n", "", "");
    EXPECT_EQ(matching(f, "Include", "", Severity::warning).size(), 1u) << dump(f);
}

namespace {

Topology federation(int clusters) {
    Topology t;
    t.name = "fed";
    for (int i = 0; i < clusters; ++i) {
        Cluster c;
        c.name = "c" + std::to_string(i);
        Node n;
        n.name = "n0";
        n.gpus = 8;
        n.gpu_type = "H100-SXM";
        c.nodes.push_back(n);
        t.clusters.push_back(c);
    }
    return t;
}

}  // namespace

TEST(TopologyChecks, ConnectedFederationIsClean) {
    Topology t = federation(3);
    t.links = {{0, 1, 1e9, 0.01}, {1, 2, 1e9, 0.02}};
    t.finalize("fed");
    auto f = check_topology(t);
    EXPECT_TRUE(f.empty()) << dump(f);
}

TEST(TopologyChecks, PairsWithNoPathAndMissingFigures) {
    Topology t = federation(4);
    t.links = {{0, 1, 1e9, 0.01}, {2, 3, 1e9, 0.01}};
    auto f = check_topology(t);
    auto nopath = matching(f, "clusters", "no path to");
    ASSERT_EQ(nopath.size(), 1u) << dump(f);

    t = federation(3);
    t.links = {{0, 1, 0.0, 0.01}, {1, 2, 1e9, 0.0}};
    f = check_topology(t);
    EXPECT_EQ(matching(f, "link c0<->c1", "no bandwidth").size(), 1u) << dump(f);
    EXPECT_EQ(matching(f, "link c1<->c2", "latency 0", Severity::warning).size(), 1u) << dump(f);
    EXPECT_EQ(matching(f, "cluster c0", "no path to").size(), 1u) << "a 0-bandwidth link joins nothing:\n" << dump(f);
}

TEST(TopologyChecks, ClusterInsides) {
    Topology t = federation(1);
    Cluster& c = t.clusters[0];
    c.nodes.push_back(Node{});
    c.nodes.back().name = "n1";
    c.nodes.back().gpus = 4;  // no type
    c.nodes.back().gpu_slots.resize(2);
    c.switches = {{"leaf", {}, {"n0"}, 0}, {"ghost", {}, {}, 0}};
    c.nodes[1].leaf_switch = "lef";
    auto f = check_topology(t);
    EXPECT_EQ(matching(f, "node n1", "unknown type", Severity::warning).size(), 1u) << dump(f);
    EXPECT_EQ(matching(f, "node n1", "locality").size(), 1u) << dump(f);
    EXPECT_EQ(matching(f, "node n1", "not defined").size(), 1u) << dump(f);
    EXPECT_EQ(matching(f, "switch ghost", "reaches no node", Severity::warning).size(), 1u) << dump(f);
}
