// compare_with_slurm(): our topology file against the site's Slurm files, on the shipped
// fixtures (agree/ and disagree/ beside site.json) and on small configs in memory.
#include <gtest/gtest.h>

#include "common/topology/checks.h"
#include "common/topology/reader.h"
#include "common/topology/slurm_conf.h"
#include "common/topology/slurm_reader.h"
#include "site_test_util.h"

using namespace spiderflow;
using test::dump;
using test::matching;

namespace {

const std::string kSiteJson = "tests/data/topocheck/site.json";

std::vector<Finding> compare_fixture(const std::string& dir) {
    const Topology ours = read_topology(test::data_path("topocheck/site.json"), "spiderflow");
    const slurm::SlurmFiles site = slurm::load_slurm_files(test::data_path("topocheck/" + dir + "/slurm.conf"));
    const Topology theirs = topology_from_slurm_files(site);
    return compare_with_slurm(ours.clusters.at(static_cast<size_t>(ours.cluster_index("alpha"))), kSiteJson,
                              theirs.clusters.front(), site);
}

// Cluster "c" as our file has it (one node n1 with `gpus` GPUs of `type`, no switches) against
// a slurm.conf given as text.
std::vector<Finding> compare_texts(int gpus, const std::string& type, const std::string& slurm_conf) {
    Topology ours;
    Cluster c;
    c.name = "c";
    Node n;
    n.name = "n1";
    n.gpus = gpus;
    n.gpu_type = type;
    c.nodes.push_back(n);
    ours.clusters.push_back(c);
    slurm::SlurmFiles site;
    site.slurm = slurm::parse_slurm_conf(slurm_conf, "slurm.conf");
    const Topology theirs = topology_from_slurm_files(site);
    return compare_with_slurm(ours.clusters.front(), "ours.json", theirs.clusters.front(), site);
}

}  // namespace

TEST(CompareWithSlurm, AgreeingFilesHaveNoFindings) {
    const auto f = compare_fixture("agree");
    EXPECT_TRUE(f.empty()) << dump(f);
}

TEST(CompareWithSlurm, CountsTypesAndNodesInOneOnlyAreErrorsAtTheirLines) {
    const auto f = compare_fixture("disagree");
    const auto count = matching(f, "node gpu03", "8 GPUs in " + kSiteJson + ", 4 in");
    ASSERT_EQ(count.size(), 1u) << dump(f);
    EXPECT_NE(count[0].where.find("disagree/slurm.conf:10"), std::string::npos) << count[0].where;
    const auto type = matching(f, "node gpu04", "GPU type 'H100-SXM'");
    ASSERT_EQ(type.size(), 1u) << dump(f);
    EXPECT_NE(type[0].message.find("'A100-80GB'"), std::string::npos) << type[0].message;
    const auto ours_only = matching(f, "node gpu05", "pends forever");
    ASSERT_EQ(ours_only.size(), 1u) << dump(f);
    EXPECT_TRUE(ours_only[0].where.empty()) << "slurm.conf has no line for it: " << ours_only[0].where;
    EXPECT_EQ(count_errors(f), 3u) << dump(f);
}

TEST(CompareWithSlurm, NodesOnlyInSlurmAndSwitchTreesAreWarnings) {
    const auto f = compare_fixture("disagree");
    EXPECT_EQ(matching(f, "node gpu06", "never planned onto", Severity::warning).size(), 1u) << dump(f);
    const auto leaf = matching(f, "node gpu02", "'leaf4'", Severity::warning);
    ASSERT_EQ(leaf.size(), 1u) << dump(f);
    EXPECT_NE(leaf[0].where.find("topology.conf:3"), std::string::npos) << leaf[0].where;
    EXPECT_EQ(matching(f, "switch leaf3", "not in", Severity::warning).size(), 1u) << dump(f);
    EXPECT_EQ(matching(f, "switch leaf4", "not in " + kSiteJson, Severity::warning).size(), 1u) << dump(f);
    EXPECT_EQ(matching(f, "switch spine", "[leaf1,leaf2,leaf3]", Severity::warning).size(), 1u) << dump(f);
    EXPECT_EQ(f.size() - count_errors(f), 5u) << dump(f);
}

TEST(CompareWithSlurm, GpuTypesMatchWhateverTheirSpelling) {
    const std::string conf = "ClusterName=c\nGresTypes=gpu\nNodeName=n1 Gres=gpu:h100_sxm:8\n";
    const auto same = compare_texts(8, "NVIDIA H100-SXM", conf);
    EXPECT_TRUE(same.empty()) << dump(same);
    const auto other = compare_texts(8, "A100-80GB", conf);
    EXPECT_EQ(matching(other, "node n1", "GPU type").size(), 1u) << dump(other);
}

TEST(CompareWithSlurm, NodesWithoutGpusAreNotCompared) {
    // A login node in slurm.conf only, and a CPU node in our file only: neither runs ranks.
    const std::string conf = "ClusterName=c\nGresTypes=gpu\nNodeName=n1 Gres=gpu:h100_sxm:8\nNodeName=login1 CPUs=16\n";
    const auto f = compare_texts(8, "H100-SXM", conf);
    EXPECT_TRUE(f.empty()) << dump(f);
    const auto cpu_only = compare_texts(0, "", "ClusterName=c\nNodeName=login1 CPUs=16\n");
    EXPECT_TRUE(cpu_only.empty()) << dump(cpu_only);
}

TEST(CompareWithSlurm, ASwitchTreeOnOneSideOnlyIsOneWarning) {
    slurm::SlurmFiles site;
    site.slurm = slurm::parse_slurm_conf("ClusterName=c\nGresTypes=gpu\nNodeName=n1 Gres=gpu:h100_sxm:8\n", "slurm.conf");
    site.topology = slurm::parse_topology_conf("SwitchName=s1 Nodes=n1\n", "topology.conf");
    site.topology.present = true;
    const Topology theirs = topology_from_slurm_files(site);
    Cluster ours = theirs.clusters.front();
    ours.switches.clear();
    for (Node& n : ours.nodes) n.leaf_switch.clear();
    const auto f = compare_with_slurm(ours, "ours.json", theirs.clusters.front(), site);
    ASSERT_EQ(f.size(), 1u) << dump(f);
    EXPECT_EQ(f[0].severity, Severity::warning);
    EXPECT_NE(f[0].message.find("switch tree in topology.conf (1 switches), none in ours.json"), std::string::npos) << dump(f);
}
