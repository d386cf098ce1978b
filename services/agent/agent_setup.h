// What an agent needs before its first cycle, read from agent.conf and the spiderflow.conf it
// names: the federation's topology, this cluster's name in it, the cache file, the broker and
// its token. Shared by spiderflow-agent and the agent sched/spiderflow runs inside slurmctld.
#pragma once

#include <functional>
#include <string>

#include "services/broker_client/broker_client.h"
#include "services/agent/agent.h"

namespace spiderflow::agent {

struct LoadedAgent {
    AgentSetup setup;
    BrokerEndpoint endpoint;
};

// cluster_from_slurm: Slurm's ClusterName, asked only when spiderflow.conf names no cluster (it
// may throw). with_token=false skips the token file (--dry-run). Throws InputError on a bad
// config, topology or token file; warnings that do not stop the agent go to `log`.
LoadedAgent load_agent(const std::string& agent_conf_path, const std::function<std::string()>& cluster_from_slurm,
                       bool with_token, const Agent::Log& log);

}  // namespace spiderflow::agent
