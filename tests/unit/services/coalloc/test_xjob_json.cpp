// Cross-site jobs, orders and reports through their JSON forms.
#include <gtest/gtest.h>

#include "services/coalloc/xjob_json.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"

using namespace spiderflow;
using namespace spiderflow::coalloc;

namespace {

const char* kRequest = R"({"id": "oregon:42", "user": "alice", "account": "ml", "time_limit_s": 7200,
  "script": "#!/bin/bash\nsrun python train.py\n",
  "parts": [{"cluster": "oregon", "nodes": 2, "gpus_per_node": 8, "ranks": 16},
            {"cluster": "ohio", "nodes": 1, "gpus_per_node": 8, "ranks": 8}]})";

std::string error_of(const std::string& text) {
    try {
        xjob_request_from_json(jsonread::parse(text, "request"), "request");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(XJobJson, ARequestReadsStrictly) {
    const XJob j = xjob_request_from_json(jsonread::parse(kRequest, "request"), "request");
    EXPECT_EQ(j.id, "oregon:42");
    EXPECT_EQ(j.time_limit_s, 7200);
    ASSERT_EQ(j.parts.size(), 2u);
    EXPECT_EQ(j.parts[1].spec.cluster, "ohio");
    EXPECT_EQ(j.parts[0].spec.ranks, 16);
    EXPECT_EQ(j.script, "#!/bin/bash\nsrun python train.py\n");
    EXPECT_FALSE(xjob_to_json(j, false).contains("script"));
    EXPECT_EQ(xjob_request_from_json(xjob_request_to_json(j), "again").parts[1].spec.ranks, 8);

    EXPECT_NE(error_of(R"({"id": "a:1", "user": "u", "time_limit_s": 1, "parts": [], "command": "x"})").find("command"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"id": "a:1", "user": "../../etc/passwd", "time_limit_s": 1, "parts": []})").find("user"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"id": "a:1", "user": "u", "time_limit_s": 0, "parts": []})").find("time_limit_s"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"id": "a:1", "user": "u", "time_limit_s": 5, "script": "#!/bin/sh", "parts": [{"cluster": "x", "nodes": 0,
              "gpus_per_node": 8, "ranks": 1}]})").find("parts[0].nodes"), std::string::npos);
    EXPECT_NE(error_of(R"({"id": "a:1", "user": "u", "time_limit_s": 5.5, "parts": []})").find("expected an integer"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"id": "a:1", "user": "u", "time_limit_s": 5, "script": "/home/u/train.sh", "parts": []})")
                  .find("starts with #!"),
              std::string::npos);
}

TEST(XJobJson, AJobInMidFlightSurvivesTheStore) {
    Coallocator c;
    XJob req = xjob_request_from_json(jsonread::parse(kRequest, "request"), "request");
    req.home = "oregon";
    c.submit(req, 100);
    c.step(100, {});
    Report o;
    o.kind = ReportKind::Offer;
    o.xjob = "oregon:42";
    o.attempt = 1;
    o.earliest_start = 500;
    c.report("oregon", o, 101);
    o.part = 1;
    c.report("ohio", o, 102);
    Report r;
    r.kind = ReportKind::Reserved;
    r.xjob = "oregon:42";
    r.attempt = 1;
    r.reservation = "spiderflow-oregon_42-a1-p0";
    r.nodes = {"or-gpu001", "or-gpu002"};
    c.report("oregon", r, 103);

    const XJob& before = *c.find("oregon:42");
    const std::string text = xjob_to_json(before).dump();
    const XJob after = xjob_from_json(jsonread::parse(text, "store"), "store");
    EXPECT_EQ(xjob_to_json(after).dump(), text);
    EXPECT_EQ(after.state, XJobState::Reserving);
    EXPECT_EQ(after.parts[0].nodes, before.parts[0].nodes);

    // The restored job carries on where it was.
    Coallocator again;
    again.restore(after);
    EXPECT_EQ(again.orders_for("ohio").at(0).kind, OrderKind::Reserve);
    EXPECT_TRUE(again.orders_for("oregon").empty());
}

// A job queued again after a failure keeps in the store what a broker restarted (kill -9) needs
// to go on exactly once: its runs, what was lost, when it is planned anew, its earlier parts.
TEST(XJobJson, ARequeuedJobSurvivesTheStore) {
    XJob j = xjob_request_from_json(jsonread::parse(kRequest, "request"), "request");
    j.on_failure = {2, true};
    const XJob via = xjob_request_from_json(xjob_request_to_json(j), "again");
    EXPECT_EQ(via.on_failure.requeues, 2);
    EXPECT_TRUE(via.on_failure.any_layout);
    j.home = "oregon";
    j.failure_requeues = 1;
    j.lost_clusters = {"ohio"};
    j.lost_nodes = {"ohio:oh-gpu001"};
    j.replan_at = 4242;
    j.runs.push_back({1, "tp=2 pp=2 dp=4", "oregon:2x8,ohio:1x8", 100, 200, "part 1 on ohio ended: NODE_FAIL"});
    Part old{PartSpec{"ohio", 1, 8, 8}};
    old.job_id = 77;
    old.to_release = {"spiderflow-oregon_42-a1-p1"};
    j.retired.push_back(old);
    const std::string text = xjob_to_json(j).dump();
    const XJob after = xjob_from_json(jsonread::parse(text, "store"), "store");
    EXPECT_EQ(xjob_to_json(after).dump(), text);
    EXPECT_EQ(after.failure_requeues, 1);
    EXPECT_EQ(run_number(after), 2);
    EXPECT_EQ(after.replan_at, 4242);
    ASSERT_EQ(after.runs.size(), 1u);
    EXPECT_EQ(after.runs[0].end, "part 1 on ohio ended: NODE_FAIL");
    ASSERT_EQ(after.retired.size(), 1u);
    EXPECT_EQ(after.retired[0].job_id, 77u);
    EXPECT_NE(error_of(R"({"id": "a:1", "user": "u", "time_limit_s": 5, "script": "#!/bin/sh", "on_failure": {"requeues": 1,
              "replan": "sometimes"}, "parts": []})").find("on_failure.replan"), std::string::npos);
}

TEST(XJobJson, OrdersAndReportsRoundTrip) {
    Order o;
    o.kind = OrderKind::Submit;
    o.xjob = "oregon:42";
    o.part = 1;
    o.attempt = 3;
    o.user = "alice";
    o.nodes = 1;
    o.gpus_per_node = 8;
    o.start_at = 900;
    o.duration_s = 7200;
    o.reservation = "spiderflow-oregon_42-a3-p1";
    o.job_name = "spiderflow-oregon_42-a3-p1";
    o.script = "#!/bin/sh\nhostname\n";
    o.world_size = 24;
    o.first_rank = 16;
    o.master_node = "or-gpu001";
    const std::string text = order_to_json(o).dump();
    EXPECT_EQ(order_to_json(order_from_json(jsonread::parse(text, "o"), "o", "orders[0]")).dump(), text);

    Report r;
    r.kind = ReportKind::Ended;
    r.xjob = "oregon:42";
    r.part = 1;
    r.attempt = 3;
    r.job_id = 77;
    r.reason = "NODE_FAIL";
    const std::string rt = report_to_json(r).dump();
    const Report back = report_from_json(jsonread::parse(rt, "r"), "r", "reports[0]");
    EXPECT_EQ(report_to_json(back).dump(), rt);
    EXPECT_FALSE(report_to_json(r).contains("lost_nodes"));  // only when set: older brokers read the rest
    r.lost_nodes = {"oh-gpu001"};
    EXPECT_EQ(report_from_json(report_to_json(r), "r", "").lost_nodes, r.lost_nodes);
    EXPECT_THROW(report_from_json(jsonread::parse(R"({"report": "ended", "xjob": "a:1", "part": 0, "attempt": 1,
                                                     "lost_nodes": ["../etc"]})", "r"), "r", ""),
                 InputError);

    try {
        report_from_json(jsonread::parse(R"({"report": "offer", "xjob": "a:1", "part": 0, "attempt": 1})", "r"), "r",
                         "reports[2]");
        ADD_FAILURE() << "an offer without its time was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("reports[2].earliest_start"), std::string::npos) << e.what();
    }
    EXPECT_THROW(report_from_json(jsonread::parse(R"({"report": "done", "xjob": "a:1", "part": 0, "attempt": 1})", "r"),
                                  "r", ""),
                 InputError);
}
