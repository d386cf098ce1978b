// The broker's link probes: who is ordered what in each state, which reports count, timeouts.
#include <gtest/gtest.h>

#include <stdexcept>

#include "services/broker/probe_board.h"
#include "services/probe/probe_protocol.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"

using namespace spiderflow;
using namespace spiderflow::broker;

namespace {

ProbeReport said(const std::string& id, ProbeReport::Kind kind) {
    ProbeReport r;
    r.probe = id;
    r.kind = kind;
    return r;
}

}  // namespace

// B serves, A measures to B's node once B says where, then B's serve job is ended; asking
// again for an unfinished probe of the same link gives the same probe.
TEST(ProbeBoard, TheFarEndServesThenTheNearEndMeasuresAndTheServeJobIsEnded) {
    ProbeBoard board(5301, 180);
    const std::string id = board.request("a", "b", "a", 100).id;
    EXPECT_EQ(board.request("a", "b", "b", 101).id, id);
    EXPECT_THROW(board.request("a", "a", "a", 100), std::invalid_argument);
    EXPECT_TRUE(board.orders_for("a").empty());
    auto b = board.orders_for("b");
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0].kind, ProbeOrder::Kind::Serve);
    EXPECT_EQ(b[0].port, 5301);
    EXPECT_EQ(b[0].link, "a-b");
    ProbeReport serving = said(id, ProbeReport::Kind::Serving);
    serving.host = "b-gpu001";
    EXPECT_FALSE(board.report("a", serving, 102));  // only B says where it serves
    ASSERT_TRUE(board.report("b", serving, 102));
    auto a = board.orders_for("a");
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].kind, ProbeOrder::Kind::Measure);
    EXPECT_EQ(a[0].host, "b-gpu001");
    EXPECT_TRUE(board.orders_for("b").empty());
    // The serve job ends by itself after the one measurement it answers, maybe before A reports.
    ASSERT_TRUE(board.report("b", said(id, ProbeReport::Kind::Ended), 103));
    ProbeReport measured = said(id, ProbeReport::Kind::Measured);
    measured.gbps = 0.96;
    measured.rtt_ms = 0.1;
    ASSERT_TRUE(board.report("a", measured, 104));
    EXPECT_EQ(board.find(id)->state, Probe::State::Done);
    EXPECT_DOUBLE_EQ(board.find(id)->gbps, 0.96);
    EXPECT_TRUE(board.orders_for("a").empty());
    EXPECT_TRUE(board.orders_for("b").empty());
    EXPECT_NE(board.request("a", "b", "a", 105).id, id);  // finished: a new probe
}

// A stage that does not finish in time fails the probe, naming the end; the serve job left
// behind is ordered ended until B says it is.
TEST(ProbeBoard, AStuckStageFailsTheProbeSayingWhichAndEndsTheServeJob) {
    ProbeBoard board(5301, 60);
    const std::string id = board.request("a", "b", "a", 0).id;
    board.step(60);
    EXPECT_EQ(board.find(id)->state, Probe::State::Serving);
    board.step(61);
    EXPECT_EQ(board.find(id)->state, Probe::State::Failed);
    EXPECT_EQ(board.find(id)->reason, "b's serve job did not start within 60 s");
    auto b = board.orders_for("b");
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0].kind, ProbeOrder::Kind::End);
    ASSERT_TRUE(board.report("b", said(id, ProbeReport::Kind::Ended), 62));
    EXPECT_TRUE(board.orders_for("b").empty());

    const std::string id2 = board.request("a", "b", "a", 100).id;
    ProbeReport failed = said(id2, ProbeReport::Kind::Failed);
    failed.reason = "the serve job 7 ended before it served (FAILED)";
    EXPECT_FALSE(board.report("c", failed, 101));
    ASSERT_TRUE(board.report("b", failed, 101));
    EXPECT_EQ(board.find(id2)->reason, "b: the serve job 7 ended before it served (FAILED)");
    board.step(101 + 86401);
    EXPECT_NE(board.find(id2), nullptr);  // its serve job not yet said ended
    ASSERT_TRUE(board.report("b", said(id2, ProbeReport::Kind::Ended), 200000));
    board.step(200000 + 86401);
    EXPECT_EQ(board.find(id2), nullptr);
}

TEST(ProbeProtocol, OrdersAndReportsRoundTripAndHostileWordsAreRefused) {
    probe::ProbeOrder o;
    o.probe = "p3";
    o.kind = probe::ProbeOrder::Kind::Measure;
    o.link = "a-b";
    o.port = 5301;
    o.host = "b-gpu001.example.org";
    const auto back = probe::probe_order_from_json(probe::probe_order_to_json(o), "o", "");
    EXPECT_EQ(back.host, o.host);
    EXPECT_EQ(back.kind, o.kind);
    probe::ProbeReport r;
    r.probe = "p3";
    r.kind = probe::ProbeReport::Kind::Measured;
    r.gbps = 0.5;
    r.rtt_ms = 1.5;
    EXPECT_DOUBLE_EQ(probe::probe_report_from_json(probe::probe_report_to_json(r), "r", "").rtt_ms, 1.5);
    EXPECT_THROW(probe::probe_order_from_json(jsonread::parse(R"({"probe": "p1", "order": "measure", "link": "a-b",
                 "port": 5301, "host": "--exec=sh"})", "o"), "o", ""), InputError);
    EXPECT_THROW(probe::probe_order_from_json(jsonread::parse(R"({"probe": "p1", "order": "measure", "link": "a-b",
                 "port": 5301})", "o"), "o", ""), InputError);
    EXPECT_THROW(probe::probe_report_from_json(jsonread::parse(R"({"probe": "p1", "report": "done"})", "r"), "r", ""),
                 InputError);
    EXPECT_THROW(probe::probe_report_from_json(jsonread::parse(R"({"probe": "p1", "report": "measured", "gbps": 0,
                 "rtt_ms": 1})", "r"), "r", ""), InputError);
}
