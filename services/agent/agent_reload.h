// SIGHUP to a running agent, as `scontrol reconfigure` to slurmctld: agent.conf (and the token
// file it names) is read again and the agent goes on with it, logging each key that changed; a
// config that does not load is refused with the reason and the running one kept, so a typo never
// stops an agent. What comes from spiderflow.conf (this cluster's name, the topology, the cache
// file) is read at start only: a change there asks for a restart and is not applied.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "services/agent/agent_conf.h"
#include "services/agent/agent_setup.h"

namespace spiderflow::agent {

// "key: old -> new" for every agent.conf key whose value differs, in the file's key order.
std::vector<std::string> agent_conf_changes(const AgentConf& before, const AgentConf& after);

// The configuration to go on with, or nothing (the running one stays; `log` said why).
// `load` reads the agent's configuration afresh (load_agent with the running cluster's name).
std::optional<LoadedAgent> reload_agent(const LoadedAgent& running, const std::function<LoadedAgent()>& load,
                                        const Agent::Log& log);

}  // namespace spiderflow::agent
