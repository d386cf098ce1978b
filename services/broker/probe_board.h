// Link probes the broker coordinates (doc/federation.md, "Measured links"): a pair of short
// Slurm jobs, one on each end's compute nodes. Cluster B's agent starts `spiderflow probe serve`
// and says on which node it listens; cluster A's agent then starts `spiderflow probe measure` to
// that node, publishes the figure as A's measurement of link A-B, and says it is done. Neither
// site opens a port other than the probe's own, on its compute node, for the few seconds it runs:
// both agents only call out to the broker. Orders follow from each probe's state (asked twice,
// the same orders), so an agent that restarts finds its jobs by name. Held in memory: a probe
// the broker forgets (a restart) is asked for again on the next schedule or `--now`. Time is
// passed in; not thread-safe (the broker calls it under its one lock).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "services/probe/probe_protocol.h"

namespace spiderflow::broker {

using probe::ProbeOrder;
using probe::ProbeReport;

struct Probe {
    std::string id;          // "p17"
    std::string a, b;        // A measures, B serves: link A-B
    std::string requested_by;
    enum class State { Serving, Measuring, Done, Failed } state = State::Serving;
    std::string host;        // where B's serve job listens (its node's address for other sites)
    double gbps = 0, rtt_ms = 0;
    std::string reason;      // Failed: why
    bool serve_ended = false;  // B says its serve job is gone
    int64_t created_at = 0, state_since = 0;
};
const char* probe_state_name(Probe::State s);

class ProbeBoard {
public:
    // `port`: the serve job's iperf3 port (its RTT listener takes the next); `stage_timeout_s`: a
    // serve or measure job not done by then fails the probe, saying which.
    ProbeBoard(int port = 5301, int64_t stage_timeout_s = 180);

    // A probe of link A-B (A measures). An unfinished probe of the same link is returned instead
    // of a second. Throws std::invalid_argument when A == B or either name is empty.
    const Probe& request(const std::string& a, const std::string& b, const std::string& by, int64_t now);
    std::vector<ProbeOrder> orders_for(const std::string& cluster) const;
    // False when ignored: an unknown probe, a cluster that is not the end the report concerns, a
    // report that makes no sense in the probe's state.
    bool report(const std::string& cluster, const ProbeReport& r, int64_t now);
    // Fails probes stuck in a stage; forgets finished ones a day old.
    void step(int64_t now);

    const Probe* find(const std::string& id) const;
    std::vector<const Probe*> all() const;

private:
    int port_;
    int64_t stage_timeout_s_;
    uint64_t next_ = 1;
    std::map<std::string, Probe> probes_;
};

}  // namespace spiderflow::broker
