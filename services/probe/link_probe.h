// Measures one inter-cluster link the way the planner uses it: TCP bandwidth over several
// streams and the round-trip time, between two compute nodes, with iperf3 (the far side runs
// `iperf3 --server --one-off`, this side the client). The result is a LinkMeasurement that an
// agent publishes as a link_measured delta (doc/site-state.md), which replaces the topology's
// declared figure in the planner's view while it is recent (spiderflow.conf's
// measured_link_max_age).
#pragma once

#include <string>

#include "common/coflow/command_runner.h"
#include "common/site/site_types.h"

namespace spiderflow::probe {

struct ProbeOptions {
    std::string host;          // the far side's compute node (name or address)
    int port = 5201;           // iperf3's own default
    int streams = 4;           // parallel TCP streams: one stream rarely fills a long fat pipe
    double seconds = 5;        // measuring time, after iperf3's connection set-up
    double connect_timeout_s = 5;
};

// What one run measured: bandwidth received over all streams, and the round-trip time of TCP's
// handshake on an idle link (iperf3's own RTT figures are smoothed samples taken while its streams
// fill the bottleneck's queue: on a 200 Mbit/s link of 0.05 ms they said 10.9 ms).
struct ProbeReading {
    double bandwidth_Bps = 0;
    double rtt_s = 0;
    double seconds = 0;        // how long iperf3 measured
};

// The port beside iperf3's that `serve` listens on for the handshake RTT.
inline int rtt_port(int iperf_port) { return iperf_port == 65535 ? iperf_port - 1 : iperf_port + 1; }

// A listening socket on every address at `port` whose handshakes the kernel completes without
// the program accepting them: the RTT's far end, open while it lives. Throws InputError when the
// port is still taken after wait_s seconds.
class RttListener {
public:
    explicit RttListener(int port, double wait_s = 0);
    ~RttListener();
    RttListener(const RttListener&) = delete;
    RttListener& operator=(const RttListener&) = delete;

private:
    int fd_ = -1;
};

// Returns once `port` could be listened on by a program with SO_REUSEADDR (iperf3), at most
// wait_s seconds; throws InputError naming the port when it is still taken.
void await_free_port(int port, double wait_s);

// The smallest of `count` TCP handshake times to host:port (connect() returning), in seconds.
// Throws InputError when none connects within timeout_s.
double handshake_rtt(const std::string& host, int port, int count = 5, double timeout_s = 5);

// iperf3's command lines, argument vectors (never a shell).
coflow::Argv client_argv(const ProbeOptions& o);
coflow::Argv server_argv(int port);

// Reads iperf3's --json output. Throws InputError with iperf3's own error text when it reports
// one ("unable to connect to server: Connection refused"), or naming what is missing.
ProbeReading parse_iperf3_json(const std::string& json);

// Measures the handshake RTT, then runs iperf3's client and reads its answer. Throws InputError
// when the far side does not answer, or iperf3 cannot be run or fails.
ProbeReading measure(coflow::CommandRunner& runner, const ProbeOptions& o);

// A reading as the link figure of clusters a and b (round trip halved: links carry one-way
// latency), stamped `now` (seconds since the epoch) and sourced "spiderflow-probe".
LinkMeasurement to_measurement(const ProbeReading& r, const std::string& a, const std::string& b, SiteTime now);

}  // namespace spiderflow::probe
