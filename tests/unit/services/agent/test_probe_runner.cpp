// The agent's link probes: jobs started for the broker's orders, found again by name, the measure
// job's figure read from its comment and published, the schedule.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/site/site_delta.h"
#include "services/agent/probe_runner.h"

using namespace spiderflow;
using namespace spiderflow::agent;

namespace {

struct FakeProbeHands : ProbeHands {
    std::vector<ProbeJob> jobs;
    std::vector<std::string> scripts;
    std::vector<uint32_t> cancelled;
    uint32_t submit_probe(const std::string& name, const std::string& script) override {
        ProbeJob j;
        j.job_id = static_cast<uint32_t>(700 + jobs.size());
        j.name = name;
        jobs.push_back(j);
        scripts.push_back(script);
        return j.job_id;
    }
    std::vector<ProbeJob> probe_jobs() override { return jobs; }
    void cancel_probe(uint32_t id) override { cancelled.push_back(id); }
    std::string address_of(const std::string& node) override { return node + ".wan.example.org"; }
};

probe::ProbeOrder order(probe::ProbeOrder::Kind kind) {
    probe::ProbeOrder o;
    o.probe = "p4";
    o.kind = kind;
    o.link = "a-b";
    o.port = 5301;
    if (kind == probe::ProbeOrder::Kind::Measure) o.host = "b-gpu001.wan.example.org";
    return o;
}

struct Probes {
    FakeProbeHands hands;
    std::vector<LinkMeasurement> published;
    std::vector<std::string> log;
    ProbeRunner runner;
    explicit Probes(double interval_s = 0)
        : runner("a", BrokerClient(BrokerEndpoint{"http://127.0.0.1:1", "t"}), hands,
                 ProbeSettings{"/opt/sf/bin/spiderflow", interval_s, {"a-b", "a-c"}},
                 [this](const LinkMeasurement& m) { published.push_back(m); },
                 [this](const std::string& s) { log.push_back(s); }) {}
};

}  // namespace

TEST(ProbeRunner, TheFarEndStartsOneServeJobAndSaysWhereItListens) {
    Probes p;
    EXPECT_TRUE(p.runner.round({order(probe::ProbeOrder::Kind::Serve)}).empty());
    ASSERT_EQ(p.hands.jobs.size(), 1u);
    EXPECT_EQ(p.hands.jobs[0].name, "spiderflow-probe-p4-serve");
    EXPECT_EQ(p.hands.scripts[0], "#!/bin/sh\nexec /opt/sf/bin/spiderflow probe serve --port 5301 --job-comment\n");
    EXPECT_TRUE(p.runner.round({order(probe::ProbeOrder::Kind::Serve)}).empty());  // pending: not again
    EXPECT_EQ(p.hands.jobs.size(), 1u);
    p.hands.jobs[0].state = ProbeJob::State::Running;
    p.hands.jobs[0].node = "b-gpu001";
    // Running in Slurm's eyes is not listening yet: only the job's own word counts.
    EXPECT_TRUE(p.runner.round({order(probe::ProbeOrder::Kind::Serve)}).empty());
    p.hands.jobs[0].comment = probe::kProbeServingComment;
    const auto reports = p.runner.round({order(probe::ProbeOrder::Kind::Serve)});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, probe::ProbeReport::Kind::Serving);
    EXPECT_EQ(reports[0].host, "b-gpu001.wan.example.org");
    // Ended on the broker's word: the serve job is cancelled while it still runs.
    const auto ended = p.runner.round({order(probe::ProbeOrder::Kind::End)});
    EXPECT_EQ(p.hands.cancelled, std::vector<uint32_t>{700});
    ASSERT_EQ(ended.size(), 1u);
    EXPECT_EQ(ended[0].kind, probe::ProbeReport::Kind::Ended);
}

TEST(ProbeRunner, TheMeasureJobsFigureIsPublishedAndReported) {
    Probes p;
    EXPECT_TRUE(p.runner.round({order(probe::ProbeOrder::Kind::Measure)}).empty());
    ASSERT_EQ(p.hands.scripts.size(), 1u);
    EXPECT_EQ(p.hands.scripts[0], "#!/bin/sh\nexec /opt/sf/bin/spiderflow probe measure --to b-gpu001.wan.example.org "
                                  "--port 5301 --link a-b --job-comment\n");
    LinkMeasurement m{"a", "b", 0.96e9 / 8, 0.00005, 1796600000, "spiderflow-probe"};
    p.hands.jobs[0].state = ProbeJob::State::Ended;
    p.hands.jobs[0].comment = std::string(probe::kProbeResultPrefix) + delta_to_json(LinkMeasured{m});
    const auto reports = p.runner.round({order(probe::ProbeOrder::Kind::Measure)});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, probe::ProbeReport::Kind::Measured);
    EXPECT_NEAR(reports[0].gbps, 0.96, 1e-9);
    EXPECT_NEAR(reports[0].rtt_ms, 0.1, 1e-9);
    ASSERT_EQ(p.published.size(), 1u);
    EXPECT_EQ(p.published[0], m);
}

// A measure job that ended without a figure, or left one for another link, fails the probe.
TEST(ProbeRunner, AMeasureJobWithoutItsFigureFailsTheProbeSayingWhereItsOutputIs) {
    Probes p;
    p.runner.round({order(probe::ProbeOrder::Kind::Measure)});
    p.hands.jobs[0].state = ProbeJob::State::Ended;
    p.hands.jobs[0].reason = "FAILED";
    p.hands.jobs[0].node = "a-gpu003";
    auto reports = p.runner.round({order(probe::ProbeOrder::Kind::Measure)});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, probe::ProbeReport::Kind::Failed);
    EXPECT_EQ(reports[0].reason, "the measure job 700 ended without a figure (FAILED; its output is "
                                 "/tmp/spiderflow-probe-p4-measure-700.out on a-gpu003)");
    LinkMeasurement other{"a", "c", 1e9, 0.001, 1796600000, "spiderflow-probe"};
    p.hands.jobs[0].comment = std::string(probe::kProbeResultPrefix) + delta_to_json(LinkMeasured{other});
    reports = p.runner.round({order(probe::ProbeOrder::Kind::Measure)});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, probe::ProbeReport::Kind::Failed);
    EXPECT_TRUE(p.published.empty());
}

// What the job's own program said of its failure (its comment) is in the probe's reason.
TEST(ProbeRunner, AFailedProbeJobsOwnWordIsInTheReason) {
    Probes p;
    p.runner.round({order(probe::ProbeOrder::Kind::Serve)});
    p.hands.jobs[0].state = ProbeJob::State::Ended;
    p.hands.jobs[0].reason = "FAILED";
    p.hands.jobs[0].comment = std::string(probe::kProbeFailedPrefix) + "cannot listen on port 5302: Address already in use";
    auto reports = p.runner.round({order(probe::ProbeOrder::Kind::Serve)});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].kind, probe::ProbeReport::Kind::Failed);
    EXPECT_EQ(reports[0].reason, "the serve job 700 ended before it served (FAILED: cannot listen on port 5302: "
                                 "Address already in use)");
    Probes m;
    m.runner.round({order(probe::ProbeOrder::Kind::Measure)});
    m.hands.jobs[0].state = ProbeJob::State::Ended;
    m.hands.jobs[0].reason = "FAILED";
    m.hands.jobs[0].node = "a-gpu003";
    m.hands.jobs[0].comment = std::string(probe::kProbeFailedPrefix) + "iperf3: unable to connect to server";
    reports = m.runner.round({order(probe::ProbeOrder::Kind::Measure)});
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].reason, "the measure job 700 ended without a figure (FAILED: iperf3: unable to connect to server; "
                                 "its output is /tmp/spiderflow-probe-p4-measure-700.out on a-gpu003)");
}

TEST(ProbeRunner, EachMeasuredLinkIsDueOncePerIntervalAndNeverWithoutOne) {
    Probes off;
    EXPECT_TRUE(off.runner.due(1000).empty());
    Probes every(3600);
    EXPECT_EQ(every.runner.due(1000), (std::vector<std::string>{"a-b", "a-c"}));
}
