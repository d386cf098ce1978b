// One cluster's agent: every interval it looks at slurmctld, builds the cluster's part of the
// federation state, sends the broker what changed (a full snapshot at start, after any failed
// call and every snapshot_interval; deltas otherwise; a heartbeat when nothing changed), and
// keeps the local site-state cache that job_submit reads fresh: the broker's merged federation,
// or this cluster alone (the others' nodes down) once the broker has been out of reach for
// broker_stale_after. Outbound calls only, so a site opens no port for it. The sched plugin can
// run the same class in-process.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "services/broker_client/broker_client.h"
#include "common/site/site_state.h"
#include "services/agent/agent_conf.h"
#include "services/agent/agent_metrics.h"
#include "services/agent/cluster_observation.h"
#include "services/agent/measured_links.h"
#include "services/slurmjob/spiderflow_conf.h"

namespace spiderflow::agent {

struct AgentSetup {
    AgentConf conf;
    std::shared_ptr<const Topology> topology;   // the federation's (spiderflow.conf's topology=)
    std::string cluster;                        // this cluster's name in it
    std::string cache_path;                     // spiderflow.conf's site_state=; empty = none kept
    // This agent's probes' figures, kept across restarts (measured_links.h); empty = not kept.
    std::string measured_links_path;
    double measured_link_max_age_s = 86400;     // spiderflow.conf's: older figures are not restored
};

class Agent {
public:
    using Observe = std::function<ClusterObservation(SiteTime now)>;
    using Log = std::function<void(const std::string&)>;

    Agent(AgentSetup setup, BrokerClient client, Observe observe, Log log);

    // One look, publish and cache refresh. Never throws: every failure is logged and retried on
    // the next cycle.
    void cycle(SiteTime now);
    // The next cycle sends a full snapshot (SIGHUP, or after the broker refused deltas).
    void force_snapshot() { need_snapshot_ = true; }
    // Goes on with a configuration read again (SIGHUP, agent_reload.h): same cluster and cache;
    // the links file is read afresh and the next cycle sends a full snapshot.
    void reconfigure(AgentSetup setup, BrokerClient client);
    // The part the next cycle would publish, as a snapshot (--dry-run).
    std::string preview(SiteTime now);
    // A link figure this cluster's probe measured (probe_runner.h): published from the next cycle
    // on with the links file's figures (a newer figure of the same link wins), snapshots included,
    // and kept in setup.measured_links_path, so that a restarted agent publishes it again.
    void add_measurement(const LinkMeasurement& m);
    // How publishing went and the links this cluster publishes, for the metrics textfile
    // (agent_metrics.h); the part runner adds its own figures.
    AgentFigures figures(SiteTime now) const;
    // With agent.conf's metrics_textfile set: writes it with these figures and `parts`' (both
    // agent hosts call it after each cycle). A failure is logged once and tried again next cycle.
    void write_metrics(const PartFigures& parts, SiteTime now);

private:
    std::optional<SiteState> look(SiteTime now);
    void publish(const SiteState& part, SiteTime now);
    void refresh_cache(const SiteState& part, SiteTime now);
    void write_cache(const std::string& text, SiteTime now);
    // The links file's figures and this agent's probes', the newest of each link.
    std::vector<LinkMeasurement> measured_links();
    std::vector<LinkMeasurement> links_from_file();
    void note_once(const std::string& text);

    AgentSetup setup_;
    BrokerClient client_;
    Observe observe_;
    Log log_;
    std::set<std::string> noted_;
    slurmjob::ConfErrorWatch site_conf_;        // does spiderflow.conf load (read again when it changes)
    std::string off_;                           // why SpiderFlow is off here (spiderflow.conf's error); empty = on
    std::optional<SiteState> published_;        // what the broker holds of this cluster
    bool need_snapshot_ = true;
    SiteTime last_snapshot_ = 0;
    SiteTime last_sent_ = 0;
    SiteTime broker_ok_at_ = 0;                 // last successful read of the federation
    SiteTime started_at_ = 0;
    uint64_t cached_epoch_ = 0;
    bool cache_is_federation_ = false;
    // The federation as the cache holds it, to bring up to date by the broker's delta reads.
    std::optional<SiteState> federation_;
    // The federation at the broker's epoch now: the cached one with what changed since applied,
    // or a whole read when the broker cannot say what changed (410) or the deltas do not apply.
    std::pair<SiteState, uint64_t> read_federation();
    std::string cache_text_;                    // what the cache file holds
    SiteTime cache_written_at_ = 0;
    bool broker_down_logged_ = false;
    std::string links_text_;
    std::vector<LinkMeasurement> links_;
    std::vector<LinkMeasurement> probed_;  // this agent's probes, the newest of each link
    MeasuredLinkFile kept_links_;          // probed_, across restarts
    bool restored_ = false;                // kept_links_ read back (at the first look)
    PublishFigures publish_figures_;
    std::vector<LinkMeasurement> looked_links_;  // measured_links() at the last look
};

// Reads a links file: one JSON object per line in the site-delta format, each a
// "link_measured" delta; blank lines and '#' comments skipped. Throws InputError naming the line.
std::vector<LinkMeasurement> parse_links_file(const std::string& text, const std::string& source);

}  // namespace spiderflow::agent
