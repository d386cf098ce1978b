// The "hwloc" TopologyReader on the hand-written fixture (tests/data/hwloc/).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "site_test_util.h"

using namespace spiderflow;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Node only_node(const Topology& t) {
    EXPECT_EQ(t.clusters.size(), 1u);
    EXPECT_EQ(t.clusters.at(0).nodes.size(), 1u);
    return t.clusters.at(0).nodes.at(0);
}

}  // namespace

TEST(HwlocReader, CountsGpusOncePerBoardAndFindsNics) {
    Topology t = read_topology(test::data_path("hwloc/gpunode-8gpu.xml"));
    const Node n = only_node(t);
    EXPECT_EQ(n.name, "gpunode01");
    EXPECT_EQ(n.gpus, 8);  // cuda+nvml of one board count once; PCI-only boards count too
    EXPECT_EQ(n.gpu_type, "A100-80GB");
    std::map<std::string, std::string> kinds;
    for (const auto& nic : n.nics) {
        kinds[nic.name] = nic.kind;
        EXPECT_GT(nic.bandwidth_Bps, 0) << nic.name;
    }
    EXPECT_EQ(kinds, (std::map<std::string, std::string>{{"eth0", "ethernet"}, {"mlx5_0", "ib"}, {"mlx5_1", "ib"}, {"mlx5_2", "ib"}}));
}

TEST(HwlocReader, NearestNicAndNumaPerGpu) {
    const Node n = only_node(read_topology(test::data_path("hwloc/gpunode-8gpu.xml")));
    ASSERT_EQ(n.gpu_slots.size(), 8u);
    const std::vector<std::string> nearest{"mlx5_0", "mlx5_0", "mlx5_1", "mlx5_1", "mlx5_2", "mlx5_2", "mlx5_2", "mlx5_2"};
    for (size_t i = 0; i < 8; ++i) {
        EXPECT_EQ(n.gpu_slots[i].index, static_cast<int>(i));
        EXPECT_EQ(n.gpu_slots[i].nearest_nic, nearest[i]) << "GPU " << i;
        EXPECT_EQ(n.gpu_slots[i].numa, i < 4 ? 0 : 1) << "GPU " << i;
        EXPECT_EQ(n.gpu_slots[i].nvlink_domain, 0);
    }
    EXPECT_EQ(n.nvlink_domain_size, 0);  // no NVLink matrix in the XML: unknown
}

TEST(HwlocReader, NearestNicFollowsTheFabricNotTheListOrder) {
    // Turn the NIC on GPU 0/1's PCIe switch into plain Ethernet (netdev "enp2s2", no RDMA
    // device): sharing the switch still beats the RDMA NICs further away.
    std::string xml = slurp(test::data_path("hwloc/gpunode-8gpu.xml"));
    ASSERT_NE(xml.find("name=\"ib0\""), std::string::npos);
    std::string edited = xml;
    edited.replace(edited.find("name=\"ib0\""), 10, "name=\"enp2s2\"");
    edited.replace(edited.find("<object type=\"OSDev\" gp_index=\"110\" name=\"mlx5_0\" osdev_type=\"3\">"),
                   std::string("<object type=\"OSDev\" gp_index=\"110\" name=\"mlx5_0\" osdev_type=\"3\">").size(),
                   "<object type=\"OSDev\" gp_index=\"110\" name=\"dma0\" osdev_type=\"4\">");
    const Node n = only_node(make_topology_reader("hwloc")->parse(edited, "edited.xml"));
    ASSERT_EQ(n.gpu_slots.size(), 8u);
    EXPECT_EQ(n.gpu_slots[0].nearest_nic, "enp2s2");
    EXPECT_EQ(n.gpu_slots[2].nearest_nic, "mlx5_1");
}

TEST(HwlocReader, NvlinkDomainsFromDistanceMatrix) {
    // Two NVLink islands of two GPUs each among the four NVML devices of package 0. In hwloc's
    // XML, "length" is the number of characters of the text that follows.
    std::string xml = slurp(test::data_path("hwloc/gpunode-8gpu.xml"));
    const std::string matrix =
        "  <distances2 type=\"OSDev\" nbobjs=\"4\" kind=\"9\" name=\"NVLinkBandwidth\" indexing=\"gp\">\n"
        "    <indexes length=\"16\">104 107 114 117 </indexes>\n"
        "    <u64values length=\"40\">0 100 0 0 100 0 0 0 0 0 0 100 0 0 100 0 </u64values>\n"
        "  </distances2>\n";
    xml.insert(xml.rfind("</topology>"), matrix);
    const Node n = only_node(make_topology_reader("hwloc")->parse(xml, "nvlink.xml"));
    ASSERT_EQ(n.gpu_slots.size(), 8u);
    EXPECT_EQ(n.gpu_slots[0].nvlink_domain, n.gpu_slots[1].nvlink_domain);
    EXPECT_EQ(n.gpu_slots[2].nvlink_domain, n.gpu_slots[3].nvlink_domain);
    EXPECT_NE(n.gpu_slots[0].nvlink_domain, n.gpu_slots[2].nvlink_domain);
    EXPECT_EQ(n.nvlink_domain_size, 1);  // GPUs 4-7 have no NVLink in the matrix
}

TEST(HwlocReader, GarbageIsAnInputErrorNamingTheFile) {
    auto reader = make_topology_reader("hwloc");
    for (const char* bad : {"", "not xml at all", "<topology version=\"2.0\"><object type=\"Bogus\"/></topology>",
                            "<?xml version=\"1.0\"?><topology",
                            // Found by fuzz_hwloc_xml: hwloc 2.9 itself segfaults on this one
                            // (no complete_cpuset on the root); the reader must survive it.
                            "<?xml version=\"1.0\"?>\n<topology version=\"2.0\"><object type=\"Machine\" os_index=\"0\" "
                            "cpuset=\"0x1\" completa_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"1\">"
                            "<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" "
                            "complete_nodeset=\"0x1\" gp_index=\"2\"/></object></topology>\n"}) {
        try {
            reader->parse(bad, "bad.xml");
            ADD_FAILURE() << "accepted: " << bad;
        } catch (const InputError& e) {
            EXPECT_EQ(e.source(), "bad.xml");
        }
    }
    EXPECT_THROW(reader->read(test::data_path("hwloc/no-such-file.xml")), InputError);
}
