#include "services/agent/agent.h"

#include <algorithm>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>

#include "common/site/site_json.h"
#include "common/util/errors.h"
#include "common/util/text_file.h"
#include "services/agent/part_builder.h"
#include "common/site/site_diff.h"
#include "services/broker_client/broker_api_types.h"
#include "services/slurmjob/spiderflow_conf.h"

namespace spiderflow::agent {
namespace {

// The cache's mtime is job_submit's proof that the agent is alive (site_state_max_age): touched
// at least this often even when nothing changed.
constexpr SiteTime kCacheTouchEvery = 30;

// This cluster's part with every other cluster's nodes down: without the broker nothing is
// known of them, and a node left "up" there would count as free.
SiteState alone(const SiteState& part, const std::string& cluster) {
    SiteState out = part.clone();
    const Topology& t = part.topology();
    for (const Cluster& c : t.clusters) {
        if (c.name == cluster) continue;
        for (const Node& n : c.nodes) out.set_node_state({c.name, n.name}, NodeState::down, "no word from the federation broker");
    }
    return out;
}

}  // namespace

std::vector<LinkMeasurement> parse_links_file(const std::string& text, const std::string& source) {
    std::vector<LinkMeasurement> out;
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        const size_t first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#') continue;
        const std::string where = source + " line " + std::to_string(n);
        const SiteDelta d = delta_from_json(line, where);
        const auto* m = std::get_if<LinkMeasured>(&d);
        if (m == nullptr) throw InputError(where, 0, "delta", std::string("expected link_measured, got ") + delta_kind(d));
        out.push_back(m->measurement);
    }
    return out;
}

namespace {

// Adds `m` to `list`, which holds one figure of each link (either direction): the newest.
void keep_newest(std::vector<LinkMeasurement>& list, const LinkMeasurement& m) {
    for (LinkMeasurement& l : list) {
        if ((l.a == m.a && l.b == m.b) || (l.a == m.b && l.b == m.a)) {
            if (m.timestamp >= l.timestamp) l = m;
            return;
        }
    }
    list.push_back(m);
}

}  // namespace

Agent::Agent(AgentSetup setup, BrokerClient client, Observe observe, Log log)
    : setup_(std::move(setup)), client_(std::move(client)), observe_(std::move(observe)), log_(std::move(log)),
      site_conf_(setup_.conf.spiderflow_conf),
      kept_links_(setup_.measured_links_path, setup_.measured_link_max_age_s, log_) {}

void Agent::note_once(const std::string& text) {
    if (noted_.insert(text).second) log_(text);
}

void Agent::reconfigure(AgentSetup setup, BrokerClient client) {
    setup_ = std::move(setup);
    client_ = std::move(client);
    site_conf_ = slurmjob::ConfErrorWatch(setup_.conf.spiderflow_conf);
    kept_links_ = MeasuredLinkFile(setup_.measured_links_path, setup_.measured_link_max_age_s, log_);
    links_text_.clear();
    links_.clear();
    noted_.clear();  // what was said of the old configuration may not hold now: said again
    need_snapshot_ = true;
}

void Agent::add_measurement(const LinkMeasurement& m) {
    keep_newest(probed_, m);
    kept_links_.save(probed_);
}

std::vector<LinkMeasurement> Agent::measured_links() {
    std::vector<LinkMeasurement> out = links_from_file();
    for (const LinkMeasurement& p : probed_) keep_newest(out, p);
    return out;
}

std::vector<LinkMeasurement> Agent::links_from_file() {
    if (setup_.conf.links_file.empty()) return {};
    try {
        std::string text = read_text_file(setup_.conf.links_file, "links file");
        if (text != links_text_) {
            links_ = parse_links_file(text, setup_.conf.links_file);
            links_text_ = std::move(text);
            log_("read " + std::to_string(links_.size()) + " measured link figure(s) from " + setup_.conf.links_file);
        }
    } catch (const std::exception& e) {
        note_once(std::string("links file not used (keeping the figures read before): ") + e.what());
    }
    return links_;
}

std::optional<SiteState> Agent::look(SiteTime now) {
    if (started_at_ == 0) started_at_ = now;
    if (!restored_) {
        // A figure measured since this agent started is newer than any kept one.
        for (const LinkMeasurement& m : kept_links_.restore(now)) keep_newest(probed_, m);
        restored_ = true;
    }
    try {
        const ClusterObservation obs = observe_(now);
        if (!obs.cluster.empty() && obs.cluster != setup_.cluster) {
            note_once("Slurm's ClusterName is '" + obs.cluster + "', published as '" + setup_.cluster +
                      "' (spiderflow.conf's cluster=)");
        }
        std::vector<std::string> notes;
        ClusterObservation seen = obs;
        // SpiderFlow off here (its config does not parse): the federation plans no part on this
        // cluster until it is fixed; its nodes are offered as drained, saying why.
        const std::string off = site_conf_.error();
        if (off != off_) {
            log_(off.empty() ? "SpiderFlow is on again on " + setup_.cluster + ": its nodes are offered to the federation"
                             : "SpiderFlow is off on " + setup_.cluster + " (" + off +
                                   "): the federation plans no part here until it is fixed");
            off_ = off;
        }
        if (!off.empty()) {
            for (ObservedNode& n : seen.nodes) {
                n.state = NodeState::drained;
                // Other sites' users read this: the cause, not the file's path and contents.
                n.reason = "SpiderFlow is off on " + setup_.cluster + " (its spiderflow.conf does not load; its agent's log says why)";
            }
        }
        looked_links_ = measured_links();
        SiteState part = build_part(setup_.topology, setup_.cluster, seen, looked_links_, &notes);
        for (const std::string& n : notes) note_once(n);
        return part;
    } catch (const std::exception& e) {
        note_once(std::string("cannot read this cluster from slurmctld: ") + e.what());
        return std::nullopt;
    }
}

void Agent::publish(const SiteState& part, SiteTime now) {
    const std::string base = "/v1/clusters/" + setup_.cluster;
    const bool snapshot_due = need_snapshot_ || !published_ || now - last_snapshot_ >= setup_.conf.snapshot_interval_s;
    const auto t0 = std::chrono::steady_clock::now();
    auto took = [&t0] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    try {
        if (!snapshot_due) {
            const std::vector<SiteDelta> deltas = diff_parts(*published_, part);
            const bool heartbeat_due = now - last_sent_ >= setup_.conf.heartbeat_s;
            if (deltas.empty() && !heartbeat_due) return;
            if (deltas_reach(*published_, deltas, part)) {
                client_.post(base + "/deltas", broker_api::deltas_to_text(deltas));
                publish_figures_.observe_ok(took(), now);
                published_ = part.clone();
                last_sent_ = now;
                return;
            }
            // What changed has no delta form (a link figure withdrawn): send it whole.
        }
        client_.put(base + "/inventory", site_state_to_json(part, -1));
        publish_figures_.observe_ok(took(), now);
        if (!published_ || need_snapshot_) log_("published a full snapshot of cluster '" + setup_.cluster + "'");
        published_ = part.clone();
        need_snapshot_ = false;
        last_snapshot_ = last_sent_ = now;
    } catch (const BrokerError& e) {
        // After any failed call the broker's copy is unknown (a timed-out write may have landed):
        // the next publish is a snapshot, which is right either way.
        ++publish_figures_.failures;
        need_snapshot_ = true;
        note_once(std::string("publishing to the broker failed (retrying every interval): ") + e.what());
    }
}

AgentFigures Agent::figures(SiteTime now) const {
    AgentFigures f;
    f.cluster = setup_.cluster;
    f.now = now;
    f.publish = publish_figures_;
    f.publish.federation_read_at = broker_ok_at_;
    // Only the links this cluster publishes (build_part leaves out the others a links file names).
    for (const LinkMeasurement& l : looked_links_) {
        if (l.a == setup_.cluster || l.b == setup_.cluster) f.links.push_back(l);
    }
    return f;
}

void Agent::write_metrics(const PartFigures& parts, SiteTime now) {
    const std::string& path = setup_.conf.metrics_textfile;
    if (path.empty()) return;
    AgentFigures f = figures(now);
    f.parts = parts;
    if (!write_metrics_textfile(path, agent_metrics_text(f, *setup_.topology))) {
        note_once("cannot write the metrics textfile " + path + ": " + std::strerror(errno));
    }
}

void Agent::write_cache(const std::string& text, SiteTime now) {
    const std::string& path = setup_.cache_path;
    if (text == cache_text_) {
        if (now - cache_written_at_ >= kCacheTouchEvery && ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0) == 0) {
            cache_written_at_ = now;
        }
        return;
    }
    // Written beside the cache and renamed over it: job_submit never reads half a file.
    if (!write_whole_file(path, text)) {
        note_once("cannot write the site state cache " + path + ": " + std::strerror(errno));
        return;
    }
    cache_text_ = text;
    cache_written_at_ = now;
}

std::pair<SiteState, uint64_t> Agent::read_federation() {
    if (cache_is_federation_ && federation_) {
        try {
            const broker_api::FederationDeltas d = broker_api::federation_deltas_from_text(
                client_.get("/v1/federation/deltas?since=" + std::to_string(cached_epoch_)), "the broker's federation deltas");
            SiteState next = federation_->clone();
            for (const SiteDelta& delta : d.deltas) next.apply(delta);
            next.restore_epoch(d.epoch);
            return {std::move(next), d.epoch};
        } catch (const BrokerError& e) {
            if (e.status() != 410) throw;   // 410: the broker no longer reaches back to our epoch
        } catch (const InputError& e) {
            note_once(std::string("the broker's deltas do not apply to our copy; reading the whole federation: ") + e.what());
        }
    }
    const broker_api::Federation fed = broker_api::federation_from_text(client_.get("/v1/federation"), "the broker's federation");
    // Checked against our topology before job_submit sees it: a broker serving another
    // federation file would otherwise make every submission fall back to the bare topology.
    return {site_state_from_json(fed.state.dump(), setup_.topology, "the broker's federation state"), fed.epoch};
}

void Agent::refresh_cache(const SiteState& part, SiteTime now) {
    if (setup_.cache_path.empty()) return;
    try {
        auto [merged, epoch] = read_federation();
        broker_ok_at_ = now;
        if (broker_down_logged_) log_("the broker answers again: job_submit plans on the federation's state");
        broker_down_logged_ = false;
        if (cache_is_federation_ && epoch == cached_epoch_) {
            write_cache(cache_text_, now);
            return;
        }
        write_cache(site_state_to_json(merged, 2), now);
        federation_ = std::move(merged);
        cached_epoch_ = epoch;
        cache_is_federation_ = true;
        return;
    } catch (const BrokerError& e) {
        note_once(std::string("cannot read the federation from the broker: ") + e.what());
    } catch (const std::exception& e) {
        note_once(std::string("the broker's federation state is not usable here: ") + e.what());
    }
    const SiteTime since = broker_ok_at_ != 0 ? broker_ok_at_ : started_at_;
    if (now - since < setup_.conf.broker_stale_after_s && cache_is_federation_) {
        write_cache(cache_text_, now);   // still fresh enough: keep the federation's last picture
        return;
    }
    if (!broker_down_logged_) {
        log_("no answer from the broker for " + std::to_string(now - since) +
             " s: job_submit now plans on cluster '" + setup_.cluster + "' alone");
        broker_down_logged_ = true;
    }
    cache_is_federation_ = false;
    write_cache(site_state_to_json(alone(part, setup_.cluster), 2), now);
}

void Agent::cycle(SiteTime now) {
    std::optional<SiteState> part = look(now);
    if (!part) return;   // slurmctld did not answer: the cache ages, job_submit notices
    publish(*part, now);
    refresh_cache(*part, now);
}

std::string Agent::preview(SiteTime now) {
    std::optional<SiteState> part = look(now);
    if (!part) throw std::runtime_error("cannot read this cluster from slurmctld (see the log above)");
    return site_state_to_json(*part, 2);
}

}  // namespace spiderflow::agent
