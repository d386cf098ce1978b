// The broker's /metrics: per-cluster, per-link and cross-site job figures under conventional names.
#include <gtest/gtest.h>

#include "services/broker/metrics.h"
#include "tests/unit/services/monitoring/exported_names.h"
#include "tests/unit/services/monitoring/monitoring_fixture.h"

using namespace spiderflow;
using namespace spiderflow::test;

namespace {

bool has_line(const std::string& text, const std::string& line) { return text.find("\n" + line + "\n") != std::string::npos; }

}  // namespace

TEST(BrokerMetrics, ClustersLinksAndCrossSiteJobs) {
    const std::string t = broker_text(1060);
    EXPECT_TRUE(has_line(t, "spiderflow_broker_cluster_gpus{cluster=\"oregon\"} 128")) << t;
    EXPECT_TRUE(has_line(t, "spiderflow_broker_cluster_free_gpus{cluster=\"oregon\"} 120"));
    // A cluster that never published has no free figure: unknown, not all free.
    EXPECT_EQ(t.find("spiderflow_broker_cluster_free_gpus{cluster=\"ohio\"}"), std::string::npos);
    EXPECT_TRUE(has_line(t, "spiderflow_broker_update_age_seconds{cluster=\"oregon\"} 60"));
    // The link under its topology name whichever end measured it; RTT twice the one-way latency.
    EXPECT_TRUE(has_line(t, "spiderflow_broker_link_measured_bandwidth_bytes_per_second{link=\"oregon-ohio\"} 175000000"));
    EXPECT_TRUE(has_line(t, "spiderflow_broker_link_measured_rtt_seconds{link=\"oregon-ohio\"} 0.049"));
    EXPECT_TRUE(has_line(t, "spiderflow_broker_link_measurement_age_seconds{link=\"oregon-ohio\"} 60"));
    EXPECT_TRUE(has_line(t, "spiderflow_broker_link_declared_bandwidth_bytes_per_second{link=\"oregon-ohio\"} 137500000"));
    EXPECT_EQ(t.find("spiderflow_broker_link_measured_rtt_seconds{link=\"oregon-london\"}"), std::string::npos);
    // Every state named, 0 or not.
    EXPECT_TRUE(has_line(t, "spiderflow_broker_cross_site_jobs{state=\"queued\"} 1"));
    EXPECT_TRUE(has_line(t, "spiderflow_broker_cross_site_jobs{state=\"failed\"} 0"));
    EXPECT_TRUE(has_line(t, "# TYPE spiderflow_broker_epoch gauge"));  // no counter without _total
}

TEST(BrokerMetrics, NamesListEveryFamilyRendered) {
    std::set<std::string> rendered;
    for (const std::string& n : exported_names(broker_text())) {
        if (n.find("_bucket") == std::string::npos && n.find("_sum") == std::string::npos &&
            n.find("_count") == std::string::npos)
            rendered.insert(n);
    }
    const std::vector<std::string> names = broker::Metrics::names();
    EXPECT_EQ(rendered, std::set<std::string>(names.begin(), names.end()));
    for (const std::string& n : names) EXPECT_EQ(n.rfind("spiderflow_broker_", 0), 0u) << n;
}
