// The launch contract's variables (launch_contract.h) that carry the core's communication
// settings: the job's link facts read back from its environment, each rank's NCCL variables with
// the contract's timeouts beside them, and the per-communicator traffic classes. Used by the
// SPANK plugin's step side, `spiderflow launch`, job_submit's traffic classes and the CLI.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "common/coflow/traffic_class.h"
#include "common/plan/nccl_env.h"

namespace spiderflow {

// job_submit writes the facts into the job's environment as SPIDERFLOW_CLUSTERS (names, commas),
// SPIDERFLOW_WAN_RTT_MS and SPIDERFLOW_WAN_GBPS; this reads them back. `lookup` returns a
// variable's value, empty when unset (the SPANK plugin and `spiderflow launch` each know where
// the job's variables are). Missing or malformed numbers read as 0 (nothing known).
CommFacts comm_facts_from_env(const std::function<std::string(const std::string&)>& lookup);

// Variables for the rank driving GPU `gpu` of `node` (node may be null: no locality known):
// nccl_env's, then the job's timeouts as SPIDERFLOW_NCCL_TIMEOUT_S and SPIDERFLOW_RDZV_TIMEOUT_S.
EnvList rank_env(const CommFacts& facts, const Node* node, int gpu, const NcclSettings& site);

// The job's per-communicator traffic classes (coflow::group_traffic_classes) for the framework:
// SPIDERFLOW_NCCL_TC_{EP,PP,DP}.
std::map<std::string, std::string> nccl_group_env(const coflow::TrafficClass& c);

}  // namespace spiderflow
