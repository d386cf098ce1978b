#include "common/plan/nccl_env.h"

#include <algorithm>
#include <cmath>

namespace spiderflow {

CommFacts comm_facts(const Plan& plan, const Topology& topology) {
    CommFacts f;
    std::vector<int> used;
    for (const auto& c : plan.cells) {
        if (c.cluster < 0 || c.cluster >= static_cast<int>(topology.clusters.size())) continue;
        if (std::find(used.begin(), used.end(), c.cluster) == used.end()) used.push_back(c.cluster);
    }
    for (int c : used) f.clusters.push_back(topology.clusters[static_cast<size_t>(c)].name);
    if (!topology.finalized()) return f;
    for (size_t i = 0; i < used.size(); ++i) {
        for (size_t j = i + 1; j < used.size(); ++j) {
            const PathInfo& p = topology.path(used[i], used[j]);
            if (!p.reachable()) continue;
            f.max_rtt_s = std::max(f.max_rtt_s, 2 * p.latency_s);
            f.min_wan_Bps = f.min_wan_Bps == 0 ? p.bandwidth_Bps : std::min(f.min_wan_Bps, p.bandwidth_Bps);
        }
    }
    return f;
}

int ib_timeout_for_rtt(double rtt_s) {
    // Leave room for 64 round trips (retransmits plus queueing on a shared WAN link).
    const double wanted = std::max(rtt_s, 0.0) * 64;
    int v = 20;
    while (v < 31 && 4.096e-6 * std::pow(2.0, v) < wanted) ++v;
    return v;
}

double scaled_timeout_s(double base_s, double rtt_s) {
    // 10k round trips: ring/tree setup and the first collectives over the slowest link.
    return std::ceil(base_s + 1e4 * std::max(rtt_s, 0.0));
}

long buffsize_for_path(double bandwidth_Bps, double rtt_s) {
    const double bdp = std::max(bandwidth_Bps, 0.0) * std::max(rtt_s, 0.0);
    long size = 4L << 20;
    while (size < bdp && size < (64L << 20)) size <<= 1;
    return size;
}

namespace {

const Nic* find_nic(const Node& node, const std::string& name) {
    for (const auto& n : node.nics) {
        if (n.name == name) return &n;
    }
    return nullptr;
}

bool is_rdma(const Nic& n) { return n.kind == "ib" || n.kind == "roce"; }

}  // namespace

EnvList nccl_env(const CommFacts& facts, const Node* node, int gpu, const NcclSettings& site) {
    EnvList env;
    const bool wan = facts.crosses_clusters();
    // Megatron-LM needs this to overlap TP communication with compute in launch order.
    env.push_back({"CUDA_DEVICE_MAX_CONNECTIONS", "1"});

    // Interfaces from the node's own hardware; the GPU's nearest NIC first.
    std::string socket_if = site.socket_ifname;
    std::string hca = site.ib_hca;
    if (node != nullptr) {
        const Nic* nearest = nullptr;
        for (const auto& s : node->gpu_slots) {
            if (s.index == gpu && !s.nearest_nic.empty()) nearest = find_nic(*node, s.nearest_nic);
        }
        if (socket_if.empty()) {
            if (nearest != nullptr && !is_rdma(*nearest)) {
                socket_if = "=" + nearest->name;
            } else {
                std::string list;
                for (const auto& n : node->nics) {
                    if (!is_rdma(n)) list += (list.empty() ? "" : ",") + n.name;
                }
                socket_if = list;
            }
        }
        if (hca.empty() && nearest != nullptr && is_rdma(*nearest)) hca = "=" + nearest->name;
        if (hca.empty()) {
            std::string list;
            for (const auto& n : node->nics) {
                if (is_rdma(n)) list += (list.empty() ? "" : ",") + n.name;
            }
            hca = list;
        }
    }
    if (!socket_if.empty()) {
        env.push_back({"NCCL_SOCKET_IFNAME", socket_if});
        // Gloo takes one plain name: the first of the list, without NCCL's '=' / '^' syntax.
        std::string first = socket_if.substr(0, socket_if.find(','));
        if (!first.empty() && (first[0] == '=')) first.erase(0, 1);
        if (!first.empty() && first[0] != '^') env.push_back({"GLOO_SOCKET_IFNAME", first});
    }
    if (!hca.empty()) env.push_back({"NCCL_IB_HCA", hca});

    const int tc = wan ? site.wan_ib_tc : site.ib_tc;
    const int sl = wan ? site.wan_ib_sl : site.ib_sl;
    if (tc >= 0) env.push_back({"NCCL_IB_TC", std::to_string(tc)});
    if (sl >= 0) env.push_back({"NCCL_IB_SL", std::to_string(sl)});

    const double rtt = facts.max_rtt_s;
    if (wan) {
        // Long fat pipes need many parallel streams and big buffers to fill them.
        env.push_back({"NCCL_SOCKET_NTHREADS", "4"});
        env.push_back({"NCCL_NSOCKS_PERTHREAD", "4"});
        env.push_back({"NCCL_BUFFSIZE", std::to_string(buffsize_for_path(facts.min_wan_Bps, rtt))});
        env.push_back({"NCCL_IB_QPS_PER_CONNECTION", "4"});
        env.push_back({"NCCL_IB_TIMEOUT", std::to_string(ib_timeout_for_rtt(rtt))});
    }
    return env;
}

CommTimeouts comm_timeouts(const CommFacts& facts, const NcclSettings& site) {
    return {static_cast<long>(scaled_timeout_s(site.nccl_timeout_base_s, facts.max_rtt_s)),
            static_cast<long>(scaled_timeout_s(site.rdzv_timeout_base_s, facts.max_rtt_s))};
}

}  // namespace spiderflow
