#include "services/launch/launch_env.h"

#include "common/util/parse_number.h"
#include "services/launch/launch_contract.h"

namespace spiderflow {

namespace {

// A whole-string number; 0 when empty or malformed.
double env_number(const std::string& s) {
    const auto v = to_number(s);
    return v && *v > 0 ? *v : 0;
}

}  // namespace

CommFacts comm_facts_from_env(const std::function<std::string(const std::string&)>& lookup) {
    CommFacts f;
    const std::string clusters = lookup(env::kClusters);
    size_t start = 0;
    while (start < clusters.size()) {
        size_t comma = clusters.find(',', start);
        if (comma == std::string::npos) comma = clusters.size();
        if (comma > start) f.clusters.push_back(clusters.substr(start, comma - start));
        start = comma + 1;
    }
    f.max_rtt_s = env_number(lookup(env::kWanRttMs)) / 1e3;
    f.min_wan_Bps = env_number(lookup(env::kWanGbps)) * 1e9 / 8;
    return f;
}

EnvList rank_env(const CommFacts& facts, const Node* node, int gpu, const NcclSettings& site) {
    EnvList env = nccl_env(facts, node, gpu, site);
    const CommTimeouts t = comm_timeouts(facts, site);
    env.push_back({env::kNcclTimeoutS, std::to_string(t.nccl_s)});
    env.push_back({env::kRdzvTimeoutS, std::to_string(t.rdzv_s)});
    return env;
}

std::map<std::string, std::string> nccl_group_env(const coflow::TrafficClass& c) {
    const coflow::GroupTrafficClasses g = coflow::group_traffic_classes(c);
    return {{env::kNcclTcEp, std::to_string(g.ep)}, {env::kNcclTcPp, std::to_string(g.pp)}, {env::kNcclTcDp, std::to_string(g.dp)}};
}

}  // namespace spiderflow
