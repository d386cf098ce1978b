// The probe's reading of iperf3's JSON, its command lines, and the handshake RTT against a real
// listener on loopback.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "common/util/errors.h"
#include "services/probe/link_health.h"
#include "services/probe/link_probe.h"

using namespace spiderflow;
using namespace spiderflow::probe;

namespace {

// The parts of iperf3 3.12's --json output the probe reads (a 2-stream run on loopback).
const char* const kTwoStreams = R"({"start": {"version": "iperf 3.12"},
 "end": {"streams": [{"sender": {"bits_per_second": 1.1e10, "min_rtt": 40, "mean_rtt": 120}},
                     {"sender": {"bits_per_second": 1.0e10, "min_rtt": 35, "mean_rtt": 90}}],
         "sum_sent": {"seconds": 3.0, "bits_per_second": 2.11e10},
         "sum_received": {"seconds": 3.0004, "bits_per_second": 2.1e10}}})";

TEST(LinkProbe, ReadsTheReceivedBandwidthOverAllStreams) {
    const ProbeReading r = parse_iperf3_json(kTwoStreams);
    EXPECT_DOUBLE_EQ(r.bandwidth_Bps, 2.1e10 / 8);
    EXPECT_DOUBLE_EQ(r.seconds, 3.0004);
}

TEST(LinkProbe, IperfsOwnErrorIsTheReason) {
    try {
        parse_iperf3_json(R"({"start": {}, "end": {}, "error": "unable to connect to server: Connection refused"})");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("unable to connect to server: Connection refused"), std::string::npos) << e.what();
    }
}

TEST(LinkProbe, OutputThatIsNotATcpTestIsRefusedNamingWhatIsMissing) {
    EXPECT_THROW(parse_iperf3_json(""), InputError);
    EXPECT_THROW(parse_iperf3_json("iperf3: error - unable to connect"), InputError);
    try {
        parse_iperf3_json(R"({"end": {"sum": {"bits_per_second": 5}}})");   // a UDP test's shape
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "end.sum_received.bits_per_second");
    }
}

TEST(LinkProbe, CommandLinesAreArgumentVectors) {
    ProbeOptions o;
    o.host = "b-gpu001";
    o.port = 5301;
    o.streams = 8;
    o.seconds = 2.5;
    const coflow::Argv c = client_argv(o);
    const coflow::Argv want{"iperf3", "--client", "b-gpu001", "--port", "5301", "--parallel", "8", "--time", "2.5",
                            "--connect-timeout", "5000", "--json"};
    EXPECT_EQ(c, want);
    EXPECT_EQ(server_argv(5301), (coflow::Argv{"iperf3", "--server", "--one-off", "--port", "5301"}));
    EXPECT_EQ(rtt_port(5301), 5302);
    EXPECT_EQ(rtt_port(65535), 65534);
}

TEST(LinkProbe, AReadingBecomesTheLinksOneWayFigure) {
    ProbeReading r;
    r.bandwidth_Bps = 1.2e8;
    r.rtt_s = 0.030;
    const LinkMeasurement m = to_measurement(r, "oregon", "tokyo", 1765046400);
    EXPECT_EQ(m.a, "oregon");
    EXPECT_EQ(m.b, "tokyo");
    EXPECT_DOUBLE_EQ(m.bandwidth_Bps, 1.2e8);
    EXPECT_DOUBLE_EQ(m.latency_s, 0.015);
    EXPECT_EQ(m.timestamp, 1765046400);
    EXPECT_EQ(m.source, "spiderflow-probe");
}

TEST(LinkProbe, HandshakeRttAgainstARealListenerAndNoneWithout) {
    // A port taken by the listener and then freed: the same number, so the refusal is certain.
    int port = 0;
    {
        for (port = 47311; port < 47400; ++port) {
            try {
                const RttListener l(port);
                const double rtt = handshake_rtt("127.0.0.1", port, 3, 2);
                EXPECT_GT(rtt, 0);
                EXPECT_LT(rtt, 0.5);
                break;
            } catch (const InputError&) {
                // port taken: try the next
            }
        }
        ASSERT_LT(port, 47400) << "no free port";
    }
    try {
        handshake_rtt("127.0.0.1", port, 3, 2);
        FAIL() << "a closed port answered";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("spiderflow probe serve"), std::string::npos) << e.what();
    }
    EXPECT_THROW(handshake_rtt("no-such-host.invalid", port, 1, 1), InputError);
}

// The serve job's wait for its ports: a port held by a listener the whole time is refused naming
// it; one freed while it waits (the probe before this one ending on the same node) is taken.
TEST(LinkProbe, ServeWaitsForAPortThatIsFreedAndRefusesOneThatIsNot) {
    int port = 0;
    std::unique_ptr<RttListener> held;
    for (port = 47411; port < 47500 && !held; ++port) {
        try {
            held = std::make_unique<RttListener>(port);
        } catch (const InputError&) {
            // port taken: try the next
        }
    }
    ASSERT_TRUE(held) << "no free port";
    --port;
    try {
        await_free_port(port, 0.3);
        FAIL() << "a port with a listener was called free";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("port " + std::to_string(port) + ": Address already in use"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(RttListener(port, 0.3), InputError);
    std::thread freer([&held] {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        held.reset();
    });
    EXPECT_NO_THROW(RttListener(port, 60));
    freer.join();
    EXPECT_NO_THROW(await_free_port(port, 0));
}

TEST(LinkProbe, BadOptionsAreRefusedBeforeAnythingRuns) {
    struct NeverRun : coflow::CommandRunner {
        coflow::CommandResult run(const coflow::Argv&, bool, bool) override {
            ADD_FAILURE() << "ran a command";
            return {};
        }
    } never;
    ProbeOptions o;
    EXPECT_THROW(measure(never, o), InputError);   // no host
    o.host = "127.0.0.1";
    o.streams = 0;
    EXPECT_THROW(measure(never, o), InputError);
    o.streams = 4;
    o.seconds = 0.5;
    EXPECT_THROW(measure(never, o), InputError);
}

// Three clusters, every pair declared at 10 Gbit/s; a job planned on all three (narrowest 10).
TEST(LinkHealth, OnlyMeasuredLinksBelowTheFractionOfThePlanAreFlagged) {
    Topology t;
    t.name = "three";
    for (const char* n : {"a", "b", "c"}) {
        Cluster c;
        c.name = c.region = n;
        Node node;
        node.name = std::string(n) + "1";
        node.gpu_type = "H100-SXM";
        node.gpus = 8;
        node.nvlink_domain_size = 8;
        c.nodes.push_back(node);
        t.clusters.push_back(c);
    }
    for (auto [a, b] : {std::pair{0, 1}, std::pair{0, 2}, std::pair{1, 2}}) t.links.push_back({a, b, 10e9 / 8, 0.01});
    t.finalize("test");
    SiteState s(std::make_shared<const Topology>(t));
    s.measure_link({"a", "b", 1e9 / 8, 0.01, 1765046400, "spiderflow-probe"});   // a tenth
    s.measure_link({"b", "c", 8e9 / 8, 0.01, 1765046400, "spiderflow-probe"});   // 80%: fine
    const auto flagged = probe::degraded_links(s, {"a", "b", "c", "gone"}, 10e9 / 8, 0.5);
    ASSERT_EQ(flagged.size(), 1u);
    EXPECT_EQ(flagged[0].a, "a");
    EXPECT_EQ(flagged[0].b, "b");
    EXPECT_DOUBLE_EQ(flagged[0].measured_Bps, 1e9 / 8);
    EXPECT_DOUBLE_EQ(flagged[0].planned_Bps, 10e9 / 8);
    EXPECT_EQ(flagged[0].source, "spiderflow-probe");
    // A job on b and c alone, or one whose plan said nothing about its links: nothing to flag.
    EXPECT_TRUE(probe::degraded_links(s, {"b", "c"}, 10e9 / 8, 0.5).empty());
    EXPECT_TRUE(probe::degraded_links(s, {"a", "b"}, 0, 0.5).empty());
    EXPECT_EQ(probe::degraded_links(s, {"b", "c"}, 10e9 / 8, 0.9).size(), 1u);   // a stricter site
}

}  // namespace
