// The launch contract's communication variables: link facts read back from a job's environment,
// each rank's NCCL variables with the job's timeouts, per-communicator traffic classes.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/coflow/traffic_class.h"
#include "services/launch/launch_env.h"

using namespace spiderflow;

TEST(LaunchEnv, CommFactsReadBackFromTheJobsEnvironment) {
    const std::map<std::string, std::string> vars = {
        {"SPIDERFLOW_CLUSTERS", "eu,,us"}, {"SPIDERFLOW_WAN_RTT_MS", "80"}, {"SPIDERFLOW_WAN_GBPS", "bad"}};
    const CommFacts f = comm_facts_from_env([&](const std::string& k) {
        auto it = vars.find(k);
        return it == vars.end() ? std::string() : it->second;
    });
    EXPECT_EQ(f.clusters, (std::vector<std::string>{"eu", "us"}));
    EXPECT_DOUBLE_EQ(f.max_rtt_s, 0.08);
    EXPECT_EQ(f.min_wan_Bps, 0);
}

// A rank's variables are nccl_env's, in its order, then the job's timeouts under the contract's
// names: the bases inside one site, longer over a slow WAN.
TEST(LaunchEnv, RankEnvIsNcclsThenTheJobsTimeouts) {
    NcclSettings site;
    const CommFacts far{{"a", "b"}, 0.300, 1e9 / 8};
    for (const CommFacts& f : {CommFacts{}, far}) {
        const EnvList nccl = nccl_env(f, nullptr, 0, site);
        const EnvList rank = rank_env(f, nullptr, 0, site);
        ASSERT_EQ(rank.size(), nccl.size() + 2);
        EXPECT_TRUE(std::equal(nccl.begin(), nccl.end(), rank.begin()));
        const CommTimeouts t = comm_timeouts(f, site);
        EXPECT_EQ(rank[nccl.size()], (std::pair<std::string, std::string>{"SPIDERFLOW_NCCL_TIMEOUT_S", std::to_string(t.nccl_s)}));
        EXPECT_EQ(rank[nccl.size() + 1], (std::pair<std::string, std::string>{"SPIDERFLOW_RDZV_TIMEOUT_S", std::to_string(t.rdzv_s)}));
    }
    EXPECT_EQ(rank_env({}, nullptr, 0, site).back().second, "900");
    EXPECT_GT(std::stol(rank_env(far, nullptr, 0, site).back().second), 900);
}

TEST(LaunchEnv, GroupClassesUnderTheContractsNames) {
    const auto groups = nccl_group_env(coflow::classes_for_order({12, 7, 9})[0]);
    EXPECT_EQ(groups, (std::map<std::string, std::string>{
                          {"SPIDERFLOW_NCCL_TC_EP", "184"}, {"SPIDERFLOW_NCCL_TC_PP", "184"}, {"SPIDERFLOW_NCCL_TC_DP", "136"}}));
}
