#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/plan/nccl_env.h"
#include "common/util/errors.h"

using namespace spiderflow;

namespace {

std::map<std::string, std::string> as_map(const EnvList& env) { return {env.begin(), env.end()}; }

Node hwloc_node() {
    Node n;
    n.name = "g1";
    n.gpus = 2;
    n.nics = {{"eno1", "ethernet", 12.5e9, 0}, {"mlx5_0", "ib", 50e9, 0}, {"mlx5_1", "ib", 50e9, 1}};
    n.gpu_slots = {{0, 0, 0, "mlx5_0"}, {1, 1, 0, "mlx5_1"}};
    return n;
}

}  // namespace

TEST(NcclEnv, PerRankNearestHcaAndNodeSocketInterface) {
    const Node n = hwloc_node();
    const auto e0 = as_map(nccl_env({}, &n, 0, {}));
    const auto e1 = as_map(nccl_env({}, &n, 1, {}));
    EXPECT_EQ(e0.at("NCCL_IB_HCA"), "=mlx5_0");
    EXPECT_EQ(e1.at("NCCL_IB_HCA"), "=mlx5_1");
    EXPECT_EQ(e0.at("NCCL_SOCKET_IFNAME"), "eno1");
    EXPECT_EQ(e0.at("GLOO_SOCKET_IFNAME"), "eno1");
    EXPECT_EQ(e0.at("CUDA_DEVICE_MAX_CONNECTIONS"), "1");
    EXPECT_EQ(e0.count("NCCL_IB_TIMEOUT"), 0u) << "no WAN settings inside one site";
    EXPECT_EQ(e0.count("NCCL_IB_TC"), 0u) << "traffic class only when the site sets one";
}

TEST(NcclEnv, SiteOverridesWin) {
    const Node n = hwloc_node();
    NcclSettings site;
    site.socket_ifname = "^lo,docker";
    site.ib_hca = "mlx5_3";
    site.ib_tc = 106;
    site.ib_sl = 2;
    const auto e = as_map(nccl_env({}, &n, 0, site));
    EXPECT_EQ(e.at("NCCL_SOCKET_IFNAME"), "^lo,docker");
    EXPECT_EQ(e.count("GLOO_SOCKET_IFNAME"), 0u) << "an exclude list is no interface name for Gloo";
    EXPECT_EQ(e.at("NCCL_IB_HCA"), "mlx5_3");
    EXPECT_EQ(e.at("NCCL_IB_TC"), "106");
    EXPECT_EQ(e.at("NCCL_IB_SL"), "2");
}

TEST(NcclEnv, WanSettingsScaleWithRtt) {
    CommFacts near_facts{{"a", "b"}, 0.010, 10e9 / 8};
    CommFacts far_facts{{"a", "b"}, 0.300, 1e9 / 8};
    NcclSettings site;
    site.wan_ib_tc = 32;
    const auto near_env = as_map(nccl_env(near_facts, nullptr, 0, site));
    const auto far_env = as_map(nccl_env(far_facts, nullptr, 0, site));
    EXPECT_EQ(far_env.at("NCCL_IB_TC"), "32");
    EXPECT_EQ(far_env.at("NCCL_SOCKET_NTHREADS"), "4");
    EXPECT_LE(std::stoi(far_env.at("NCCL_SOCKET_NTHREADS")) * std::stoi(far_env.at("NCCL_NSOCKS_PERTHREAD")), 64);
    EXPECT_GE(std::stoi(far_env.at("NCCL_IB_TIMEOUT")), std::stoi(near_env.at("NCCL_IB_TIMEOUT")));
    const CommTimeouts near_t = comm_timeouts(near_facts, site), far_t = comm_timeouts(far_facts, site);
    EXPECT_GT(far_t.nccl_s, near_t.nccl_s);
    EXPECT_GT(far_t.rdzv_s, near_t.rdzv_s);
    EXPECT_EQ(comm_timeouts({}, site).nccl_s, 600) << "the site's base inside one site";
    EXPECT_EQ(comm_timeouts({}, site).rdzv_s, 900);
}

TEST(NcclEnv, IbTimeoutCoversRoundTrips) {
    EXPECT_EQ(ib_timeout_for_rtt(0), 20);
    for (double rtt : {0.05, 0.3, 1.0, 5.0}) {
        const int v = ib_timeout_for_rtt(rtt);
        EXPECT_LE(v, 31);
        if (v < 31) {
            EXPECT_GE(4.096e-6 * std::pow(2.0, v), 64 * rtt) << rtt;
        }
    }
    EXPECT_EQ(ib_timeout_for_rtt(1e6), 31);
}

TEST(NcclEnv, BuffsizeIsBandwidthDelayProductClamped) {
    EXPECT_EQ(buffsize_for_path(0, 0), 4L << 20);
    EXPECT_EQ(buffsize_for_path(1.25e9, 0.1), 64L << 20) << "125 MB BDP is capped at 64 MiB";
    const long mid = buffsize_for_path(100e6, 0.1);  // 10 MB BDP -> 16 MiB
    EXPECT_EQ(mid, 16L << 20);
}

TEST(NcclEnv, CommFactsFromPlanAndTopology) {
    Topology t;
    t.clusters.resize(3);
    t.clusters[0].name = "a";
    t.clusters[1].name = "b";
    t.clusters[2].name = "c";
    Plan p;
    p.pp = 2;
    p.dp = 1;
    p.cells = {{1, 0, 0}, {0, 0, 0}};
    // Without finalize() only the cluster list is known.
    const CommFacts f = comm_facts(p, t);
    EXPECT_EQ(f.clusters, (std::vector<std::string>{"b", "a"}));
    EXPECT_TRUE(f.crosses_clusters());
    EXPECT_EQ(f.max_rtt_s, 0);
}
