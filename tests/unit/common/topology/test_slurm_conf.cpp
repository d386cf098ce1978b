// The raw parsers of slurm.conf, gres.conf and topology.conf.
#include <gtest/gtest.h>

#include "common/topology/slurm_conf.h"
#include "common/util/errors.h"
#include "site_test_util.h"

using namespace spiderflow;
using namespace spiderflow::slurm;

TEST(SlurmConf, NodeLinesWithDefaultsGresAndFeatures) {
    const std::string text =
        "ClusterName=c1\n"
        "NodeName=DEFAULT CPUs=8 Gres=gpu:2\n"
        "NodeName=a[1-2] Feature=h100,ib\n"
        "NodeName=b1 Gres=gpu:h100:4,gpu:a100:2(S:0-1) CPUs=16\n"
        "nodename=c1 gres=none\n";
    auto conf = parse_slurm_conf(text, "s.conf");
    EXPECT_EQ(conf.cluster_name, "c1");
    ASSERT_EQ(conf.nodes.size(), 3u);
    EXPECT_EQ(conf.nodes[0].names, (std::vector<std::string>{"a1", "a2"}));
    EXPECT_EQ(conf.nodes[0].gpu_count(), 2);  // from DEFAULT
    EXPECT_EQ(conf.nodes[0].features, (std::vector<std::string>{"h100", "ib"}));
    EXPECT_EQ(conf.nodes[0].line, 3);
    EXPECT_EQ(conf.nodes[1].gpu_count(), 6);
    EXPECT_EQ(conf.nodes[1].gpu_type(), "h100");
    EXPECT_EQ(conf.nodes[1].attrs.at("cpus"), "16");
    EXPECT_EQ(conf.nodes[2].gpu_count(), 0);  // Gres=none overrides the default
}

TEST(SlurmConf, ContinuationCommentsQuotesAndPartitions) {
    const std::string text =
        "# comment\n"
        "ClusterName=x  # trailing comment\n"
        "NodeName=n[1-3] \\\n"
        "   Gres=gpu:4\n"
        "PartitionName=p Nodes=n[1-2] Default=YES\n"
        "PartitionName=q Nodes=ALL\n"
        "SlurmctldParameters=\"a b\"\n";
    auto conf = parse_slurm_conf(text, "s.conf");
    ASSERT_EQ(conf.nodes.size(), 1u);
    EXPECT_EQ(conf.nodes[0].gpu_count(), 4);
    EXPECT_EQ(conf.nodes[0].line, 3);
    ASSERT_EQ(conf.partitions.size(), 2u);
    EXPECT_EQ(conf.partitions[0].nodes.size(), 2u);
    EXPECT_TRUE(conf.partitions[1].all_nodes);
}

TEST(SlurmConf, BadLinesGiveFileAndLine) {
    struct Case {
        std::string text;
        int line;
        std::string field;
    };
    for (const auto& c : std::vector<Case>{
             {"ClusterName=x\nNodeName=n[1-2 Gres=gpu:1\n", 2, "NodeName"},
             {"ClusterName=x\n\nNodeName=n1 Gres=gpu:lots:x\n", 3, "Gres"},
             {"ClusterName=x\nNodeName=n1 Gres=gpu:a:b:4\n", 2, "Gres"},
             {"ClusterName=x\nthis is not a config line\n", 2, "this"},
             {"ClusterName=x\nNodeName=n1 Features=\"open\n", 2, "Features"},
         }) {
        try {
            parse_slurm_conf(c.text, "site/slurm.conf");
            ADD_FAILURE() << "accepted: " << c.text;
        } catch (const InputError& e) {
            EXPECT_EQ(e.source(), "site/slurm.conf");
            EXPECT_EQ(e.line(), c.line) << e.what();
            EXPECT_EQ(e.field(), c.field) << e.what();
        }
    }
}

TEST(GresConf, FilesCountsAndAutodetect) {
    auto g = parse_gres_conf(
        "AutoDetect=off\n"
        "NodeName=n[1-2] Name=gpu Type=a100 File=/dev/nvidia[0-3]\n"
        "NodeName=n3 Name=gpu Count=2\n"
        "Name=mps Count=100\n",
        "g.conf");
    EXPECT_EQ(g.autodetect, "off");
    ASSERT_EQ(g.lines.size(), 3u);
    EXPECT_EQ(g.lines[0].devices(), 4);
    EXPECT_TRUE(g.lines[0].applies_to("n2"));
    EXPECT_FALSE(g.lines[0].applies_to("n3"));
    EXPECT_EQ(g.lines[1].devices(), 2);
    EXPECT_TRUE(g.lines[2].applies_to("anything"));
    EXPECT_THROW(parse_gres_conf("NodeName=n1 File=/dev/nvidia0\n", "g.conf"), InputError);
    try {
        parse_gres_conf("Name=gpu\nName=gpu Count=eight\n", "g.conf");
        ADD_FAILURE();
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 2);
        EXPECT_EQ(e.field(), "Count");
    }
}

TEST(TopologyConf, SwitchesAndErrors) {
    auto t = parse_topology_conf("SwitchName=s1 Nodes=n[1-2]\nSwitchName=top Switches=s[1-2] LinkSpeed=10\n", "t.conf");
    ASSERT_EQ(t.switches.size(), 2u);
    EXPECT_EQ(t.switches[1].switches, (std::vector<std::string>{"s1", "s2"}));
    EXPECT_EQ(t.switches[1].line, 2);
    for (const char* bad : {"SwitchName=s1 Nodez=n1\n", "Nodes=n1\n", "SwitchName=s[1-2] Nodes=n1\n"}) {
        try {
            parse_topology_conf(bad, "t.conf");
            ADD_FAILURE() << bad;
        } catch (const InputError& e) {
            EXPECT_EQ(e.line(), 1) << bad;
        }
    }
}

TEST(SlurmFiles, LoadsTheSiblingsOfSlurmConf) {
    auto site = load_slurm_files(test::data_path("slurm/good/slurm.conf"));
    EXPECT_EQ(site.slurm.cluster_name, "alpha");
    EXPECT_TRUE(site.gres.present);
    EXPECT_TRUE(site.topology.present);
    EXPECT_EQ(site.topology.switches.size(), 3u);
    EXPECT_THROW(load_slurm_files(test::data_path("slurm/does-not-exist/slurm.conf")), InputError);
    try {
        load_slurm_files(test::data_path("slurm/bad-line/slurm.conf"));
        ADD_FAILURE();
    } catch (const InputError& e) {
        EXPECT_NE(e.source().find("bad-line/slurm.conf"), std::string::npos);
        EXPECT_EQ(e.line(), 4);
    }
}
