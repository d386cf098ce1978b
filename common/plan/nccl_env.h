// NCCL / c10d environment for one rank, from the plan (which links the job crosses), the node's
// own hardware (NICs and GPU locality from hwloc) and the site's settings; the launch hands them
// to a job's ranks, its own variables beside them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow {

using EnvList = std::vector<std::pair<std::string, std::string>>;

// What the job's communication crosses; small enough to travel in the job's environment.
struct CommFacts {
    std::vector<std::string> clusters;  // clusters used, in plan order (stage 0's first)
    double max_rtt_s = 0;               // worst round trip between two clusters the job uses
    double min_wan_Bps = 0;             // narrowest inter-cluster path the job uses; 0 = none
    bool crosses_clusters() const { return clusters.size() > 1; }
};

// Needs a finalized topology (widest paths).
CommFacts comm_facts(const Plan& plan, const Topology& topology);

struct NcclSettings {
    std::string socket_ifname;   // site override for NCCL/GLOO_SOCKET_IFNAME; empty = from the node
    std::string ib_hca;          // site override for NCCL_IB_HCA; empty = the GPU's nearest HCA
    int ib_tc = -1, ib_sl = -1;          // traffic class for jobs inside one site (-1 = unset)
    int wan_ib_tc = -1, wan_ib_sl = -1;  // for jobs crossing clusters
    double nccl_timeout_base_s = 600;
    double rdzv_timeout_base_s = 900;
};

// NCCL_IB_TIMEOUT exponent (timeout = 4.096 us * 2^v) that leaves room for `rtt_s` round trips
// with retries: at least NCCL's default 20, at most the verbs maximum 31.
int ib_timeout_for_rtt(double rtt_s);
// Timeouts (seconds) for the c10d rendezvous and NCCL collectives: the base plus time for many
// round trips on the slowest link, since init exchanges O(ranks) messages over it.
double scaled_timeout_s(double base_s, double rtt_s);
// NCCL_BUFFSIZE for a path: its bandwidth-delay product rounded up to a power of two,
// between NCCL's default 4 MiB and 64 MiB.
long buffsize_for_path(double bandwidth_Bps, double rtt_s);

// NCCL's, Gloo's and CUDA's variables for the rank driving GPU `gpu` of `node` (node may be null:
// no locality known).
EnvList nccl_env(const CommFacts& facts, const Node* node, int gpu, const NcclSettings& site);

// The job's c10d timeouts (whole seconds): the site's bases scaled by the slowest link's round
// trip (scaled_timeout_s).
struct CommTimeouts {
    long nccl_s = 0;   // NCCL collectives
    long rdzv_s = 0;   // the c10d rendezvous
};
CommTimeouts comm_timeouts(const CommFacts& facts, const NcclSettings& site);

}  // namespace spiderflow
