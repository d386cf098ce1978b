// The agent's metrics, for Prometheus through node_exporter's textfile collector (agent.conf
// metrics_textfile, doc/agent.md "Metrics"): how publishing to the broker goes (latency,
// failures, the last success), the federation read, this cluster's cross-site parts by state and
// those Slurm requeued, and each link this cluster measured. The agent makes outbound calls only
// and listens on nothing; a file written whole each cycle keeps it so, and node_exporter, which a
// site already runs and secures on that host, serves it.
//
// Times are Unix timestamps (_timestamp_seconds), not ages: the file outlives an agent that
// died, and an age written into it would stop growing then, while `time() - x` keeps growing.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/site/site_types.h"
#include "common/topology/topology.h"

namespace spiderflow::agent {

// How the calls that publish this cluster's part went (Agent keeps them).
struct PublishFigures {
    static constexpr std::array<double, 9> kBuckets = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10};
    std::array<uint64_t, kBuckets.size()> buckets{};  // cumulative: calls done within each bound
    uint64_t calls = 0;         // successful publishes (snapshots, deltas, heartbeats)
    double seconds = 0;         // their summed latency
    uint64_t failures = 0;
    SiteTime last_ok_at = 0;    // 0 = none yet
    SiteTime federation_read_at = 0;  // the last successful read of the merged federation

    void observe_ok(double latency_s, SiteTime now);
};

// The part jobs slurmctld holds here, as the part runner last saw them.
struct PartFigures {
    std::map<std::string, int> by_state;   // pending, running, completing, ended: every state named
                                           // once slurmctld listed them; empty before
    uint64_t requeued_by_slurm = 0;     // part jobs seen requeued by Slurm itself, since the agent started
};

struct AgentFigures {
    std::string cluster;
    SiteTime now = 0;
    PublishFigures publish;
    PartFigures parts;
    std::vector<LinkMeasurement> links;  // the figures this cluster publishes (its probes', its links file's)
};

// The textfile's contents (Prometheus text format). `topology` names each link as its file does.
std::string agent_metrics_text(const AgentFigures& figures, const Topology& topology);
// Every metric family the agent exports, in order.
std::vector<std::string> agent_metric_names();

// Replaces `path` whole (written beside it, renamed over it: node_exporter never reads half a
// file, and the temporary name does not end in .prom, which it skips). False with errno set.
bool write_metrics_textfile(const std::string& path, const std::string& text);

}  // namespace spiderflow::agent
