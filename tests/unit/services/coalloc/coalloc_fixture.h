// Shared by the co-allocator's tests: a two-part job (oregon, ohio), hand-made agent reports and
// the report sequences that bring a job to a stage.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "services/coalloc/coallocator.h"

namespace spiderflow::coalloc::test {

inline XJob two_parts(const std::string& id, int nodes_a = 2, int nodes_b = 1) {
    XJob j;
    j.id = id;
    j.user = "alice";
    j.account = "ml";
    j.home = "oregon";
    j.time_limit_s = 3600;
    j.script = "#!/bin/sh\nsrun train.sh\n";
    j.parts.push_back(Part{PartSpec{"oregon", nodes_a, 8, nodes_a * 8}});
    j.parts.push_back(Part{PartSpec{"ohio", nodes_b, 8, nodes_b * 8}});
    return j;
}

inline Report rep(ReportKind kind, const std::string& xjob, size_t part, int attempt) {
    Report r;
    r.kind = kind;
    r.xjob = xjob;
    r.part = part;
    r.attempt = attempt;
    return r;
}

inline const std::map<std::string, int64_t> kNoSilence;

// Offers both parts, reserves both, submits and runs both: the job at Running.
inline void run_to_running(Coallocator& c, const std::string& id, int64_t now) {
    c.step(now, kNoSilence);
    const int a = c.find(id)->attempt;
    Report o = rep(ReportKind::Offer, id, 0, a);
    o.earliest_start = now;
    ASSERT_TRUE(c.report("oregon", o, now));
    o.part = 1;
    ASSERT_TRUE(c.report("ohio", o, now));
    for (size_t k = 0; k < 2; ++k) {
        Report r = rep(ReportKind::Reserved, id, k, a);
        r.reservation = part_tag(*c.find(id), k);
        r.nodes = {k == 0 ? "or-gpu001" : "oh-gpu001"};
        ASSERT_TRUE(c.report(k == 0 ? "oregon" : "ohio", r, now));
    }
    for (size_t k = 0; k < 2; ++k) {
        Report r = rep(ReportKind::Running, id, k, a);
        r.job_id = static_cast<uint32_t>(100 + k);
        ASSERT_TRUE(c.report(k == 0 ? "oregon" : "ohio", r, now));
    }
    ASSERT_EQ(c.find(id)->state, XJobState::Running);
}

// Both parts of a two_parts() job offer `start` at `now` and reserve node "n" a second later
// (part 0 at `address`, when given, for the other sites): the job is starting.
inline void offer_and_reserve(Coallocator& c, const std::string& id, int64_t start, int64_t now, const std::string& address = "") {
    for (size_t k = 0; k < 2; ++k) {
        Report o = rep(ReportKind::Offer, id, k, 1);
        o.earliest_start = start;
        c.report(k == 0 ? "oregon" : "ohio", o, now);
    }
    for (size_t k = 0; k < 2; ++k) {
        Report r = rep(ReportKind::Reserved, id, k, 1);
        r.reservation = part_tag(*c.find(id), k);
        r.nodes = {"n"};
        if (k == 0) r.address = address;
        c.report(k == 0 ? "oregon" : "ohio", r, now + 1);
    }
}

// An agent's Ended report for a part's Slurm job.
inline Report ended(const std::string& xjob, size_t part, uint32_t job_id, const std::string& reason, bool still_running = false) {
    Report r = rep(ReportKind::Ended, xjob, part, 1);
    r.job_id = job_id;
    r.reason = reason;
    r.still_running = still_running;
    return r;
}

// A two_parts() job that asks to be requeued after a failure, planned with tp=2 pp=2 dp=4.
inline XJob requeued_job(const std::string& id, int requeues) {
    XJob j = two_parts(id);
    j.on_failure.requeues = requeues;
    j.step_env = {{"SPIDERFLOW_TP", "2"}, {"SPIDERFLOW_PP", "2"}, {"SPIDERFLOW_DP", "4"}};
    return j;
}

// Reports of a running job's parts as their agents would send them when ohio's node is lost:
// ohio's part NODE_FAIL, then oregon's part ended on the broker's order.
inline void lose_ohio_node(Coallocator& c, const std::string& id, int64_t now) {
    const int a = c.find(id)->attempt;
    Report lost = ended(id, 1, c.find(id)->parts[1].job_id, "NODE_FAIL");
    lost.attempt = a;
    ASSERT_TRUE(c.report("ohio", lost, now));
    Report gone = ended(id, 0, c.find(id)->parts[0].job_id, std::string(kCancelledByBroker) + "part 1 lost");
    gone.attempt = a;
    ASSERT_TRUE(c.report("oregon", gone, now + 1));
}

}  // namespace spiderflow::coalloc::test
