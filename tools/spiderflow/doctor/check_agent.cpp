// This cluster's agent publishes: the broker's own view (GET /v1/clusters) says when this
// cluster last sent its state. An agent that runs sends at least a heartbeat every `heartbeat`
// seconds; one that does not leaves the federation planning on a stale picture of this cluster
// (and past the broker's cluster_silent_after, its cross-site jobs' other parts are ended).
#include <algorithm>

#include "common/util/human_format.h"
#include "tools/spiderflow/doctor/checks.h"

namespace spiderflow::doctor {

void check_agent(const SiteFacts& site, CheckResult& r) {
    const BrokerFacts& b = site.broker;
    const AgentFacts& a = site.agent;
    if (a.missing && !a.error.empty()) {
        r.error(a.path, "does not exist, yet it is named (--agent-conf or spiderflow.conf's controller_agent)",
                "write it (every key is documented in contrib/federation/agent.conf), or name the right file");
        return;
    }
    if (!a.error.empty()) {
        r.error(a.path, "does not load: " + a.error, "fix that line (every key is documented in contrib/federation/agent.conf)");
        return;
    }
    if (b.url.empty()) return r.skip(site.no_broker_reason());
    if (!b.asked) return r.skip("--offline");
    if (!b.health_error.empty()) return r.skip("the broker does not answer");
    if (!b.token_error.empty()) return r.skip("no usable token");
    const std::string start_agent = "start the agent (spiderflow-agent --config " + a.path +
                                    ", or controller_agent = " + a.path +
                                    " in spiderflow.conf with SchedulerType=sched/spiderflow); its log says why it does not publish";
    if (!b.clusters) {
        r.error(b.url, "refuses this cluster's token: " + b.clusters_error,
                "the broker's tokens file needs `cluster NAME HASH` for this token (spiderflow-brokerd --hash-token < " + b.token_file + ")");
        return;
    }
    const std::string name = site.cluster();
    const auto it = std::find_if(b.clusters->clusters.begin(), b.clusters->clusters.end(),
                                 [&](const broker_api::ClusterSummary& c) { return c.name == name; });
    if (it == b.clusters->clusters.end()) {
        std::string names;
        for (const auto& c : b.clusters->clusters) names += (names.empty() ? "" : ", ") + c.name;
        r.error("cluster " + name, "is not in the broker's federation topology (its clusters: " + names + ")",
                "give spiderflow.conf the federation's topology and `cluster =` this cluster's name in it");
        return;
    }
    if (!it->published()) {
        r.error("cluster " + name, "has never published to " + b.url, start_agent);
        return;
    }
    const double heartbeat = a.conf ? a.conf->heartbeat_s : agent::AgentConf{}.heartbeat_s;
    const double interval = a.conf ? a.conf->interval_s : agent::AgentConf{}.interval_s;
    // A heartbeat at most every `heartbeat`, sent at the next look; a few seconds for the round trip.
    const double bound = heartbeat + 2 * interval + 5;
    if (static_cast<double>(it->age_s) > bound) {
        r.error("cluster " + name,
                "last published " + std::to_string(it->age_s) + " s ago (an agent that runs publishes at least every " +
                    format_number("%g", heartbeat) + " s)",
                start_agent);
        return;
    }
    r.pass("cluster " + name + " published " + std::to_string(it->age_s) + " s ago");
}

}  // namespace spiderflow::doctor
