// The agent's side of link probes (services/broker/probe_board.h): asks the broker for probes of
// the links this cluster measures, on agent.conf's probe_interval, and carries out its probe
// orders as short Slurm jobs on a compute node: `spiderflow probe serve` when this cluster is the
// far end, `spiderflow probe measure` when it measures. The measure job leaves its figure in its
// own comment; the agent reads it, publishes it as this cluster's measurement (with its other
// link figures, so a full snapshot keeps it) and reports the probe done. Jobs are found by name
// after a restart; repeating a round is harmless.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/site/site_types.h"
#include "services/broker_client/broker_client.h"
#include "services/probe/probe_protocol.h"

namespace spiderflow::agent {

// A probe's Slurm job as the agent sees it, found by its name (probe_job_name).
struct ProbeJob {
    uint32_t job_id = 0;
    std::string name;
    enum class State { Pending, Running, Ended } state = State::Pending;
    std::string node;     // its node, once running
    std::string comment;  // the measure job's figure (kProbeResultPrefix + a link_measured delta)
    std::string reason;   // Slurm's end state
};

// What the probe runner asks of its slurmctld. Calls may throw (slurmctld did not answer: the
// next round tries again).
class ProbeHands {
public:
    virtual ~ProbeHands() = default;
    // One task on one node, as the agent's own user, for at most a few minutes.
    virtual uint32_t submit_probe(const std::string& name, const std::string& script) = 0;
    virtual std::vector<ProbeJob> probe_jobs() = 0;
    virtual void cancel_probe(uint32_t job_id) = 0;
    // How other sites reach `node` (agent.conf wan_address).
    virtual std::string address_of(const std::string& node) = 0;
};

struct ProbeSettings {
    std::string command;            // the `spiderflow` command on the compute nodes
    double interval_s = 0;          // ask for a probe of each measured link this often; 0 = only on demand
    std::vector<std::string> links; // the links this cluster measures ("a-b", a = this cluster)
};

class ProbeRunner {
public:
    using Log = std::function<void(const std::string&)>;
    using Publish = std::function<void(const LinkMeasurement&)>;
    ProbeRunner(std::string cluster, BrokerClient client, ProbeHands& hands, ProbeSettings settings, Publish publish, Log log);

    // The schedule, then one round of orders and reports. Never throws.
    void cycle(int64_t now);
    // agent.conf read again (SIGHUP): when each link was last asked for is kept.
    void reconfigure(BrokerClient client, ProbeSettings settings) {
        client_ = std::move(client);
        settings_ = std::move(settings);
    }
    // One round: orders in, jobs started or read, reports out (unit-testable).
    std::vector<probe::ProbeReport> round(const std::vector<probe::ProbeOrder>& orders);
    // The links whose probe is due at `now` (each asked for once per interval).
    std::vector<std::string> due(int64_t now);

private:
    probe::ProbeReport serve(const probe::ProbeOrder& o, const std::vector<ProbeJob>& jobs, bool* report);
    probe::ProbeReport measure(const probe::ProbeOrder& o, const std::vector<ProbeJob>& jobs, bool* report);

    std::string cluster_;
    BrokerClient client_;
    ProbeHands& hands_;
    ProbeSettings settings_;
    Publish publish_;
    Log log_;
    std::map<std::string, int64_t> asked_;  // link -> when last asked for
};

}  // namespace spiderflow::agent
