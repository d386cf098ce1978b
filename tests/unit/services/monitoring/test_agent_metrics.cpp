// The agent's textfile: publish figures, parts, requeues and links, each with the cluster label.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include "common/util/text_file.h"
#include "services/agent/agent_conf.h"
#include "services/agent/agent_metrics.h"
#include "common/util/errors.h"
#include "tests/unit/services/monitoring/exported_names.h"
#include "tests/unit/services/monitoring/monitoring_fixture.h"

using namespace spiderflow;
using namespace spiderflow::test;

namespace {

bool has_line(const std::string& text, const std::string& line) { return text.find("\n" + line + "\n") != std::string::npos; }

}  // namespace

TEST(AgentMetrics, PublishPartsAndLinks) {
    const std::string t = agent_text();
    EXPECT_TRUE(has_line(t, "spiderflow_agent_publish_duration_seconds_bucket{cluster=\"oregon\",le=\"0.05\"} 1")) << t;
    EXPECT_TRUE(has_line(t, "spiderflow_agent_publish_duration_seconds_bucket{cluster=\"oregon\",le=\"0.025\"} 0"));
    EXPECT_TRUE(has_line(t, "spiderflow_agent_publish_duration_seconds_count{cluster=\"oregon\"} 1"));
    EXPECT_TRUE(has_line(t, "spiderflow_agent_publish_failures_total{cluster=\"oregon\"} 2"));
    EXPECT_TRUE(has_line(t, "spiderflow_agent_last_publish_success_timestamp_seconds{cluster=\"oregon\"} 1050"));
    EXPECT_TRUE(has_line(t, "spiderflow_agent_last_federation_read_timestamp_seconds{cluster=\"oregon\"} 1055"));
    EXPECT_TRUE(has_line(t, "spiderflow_agent_parts{cluster=\"oregon\",state=\"running\"} 2"));
    EXPECT_TRUE(has_line(t, "spiderflow_agent_parts{cluster=\"oregon\",state=\"completing\"} 0"));
    EXPECT_TRUE(has_line(t, "spiderflow_agent_parts_requeued_by_slurm_total{cluster=\"oregon\"} 1"));
    // Measured from ohio's side ("ohio"-"oregon"): named as the topology names the link.
    EXPECT_TRUE(has_line(t, "spiderflow_agent_link_measured_bandwidth_bytes_per_second{cluster=\"oregon\",link=\"oregon-ohio\"} 175000000"));
    EXPECT_TRUE(has_line(t, "spiderflow_agent_link_measured_rtt_seconds{cluster=\"oregon\",link=\"oregon-ohio\"} 0.049"));
    EXPECT_TRUE(has_line(t, "spiderflow_agent_link_measured_timestamp_seconds{cluster=\"oregon\",link=\"oregon-ohio\"} 1000"));
}

TEST(AgentMetrics, BeforeAnythingHappenedOnlyFamiliesAndCounters) {
    agent::AgentFigures f;
    f.cluster = "ohio";
    f.now = 5;
    const std::string t = agent::agent_metrics_text(f, *aws4());
    EXPECT_EQ(t.find("spiderflow_agent_last_publish_success_timestamp_seconds{"), std::string::npos);  // absent, not 0
    EXPECT_EQ(t.find("spiderflow_agent_parts{"), std::string::npos);  // slurmctld not asked yet
    EXPECT_TRUE(has_line(t, "spiderflow_agent_publish_failures_total{cluster=\"ohio\"} 0"));
    const std::vector<std::string> names = agent::agent_metric_names();
    for (const std::string& n : names) {
        EXPECT_EQ(n.rfind("spiderflow_agent_", 0), 0u) << n;
        EXPECT_NE(t.find("# TYPE " + n + " "), std::string::npos) << n;
    }
}

TEST(AgentMetrics, TextfileIsReplacedWholeAndConfNeedsDotProm) {
    char dir[] = "/tmp/sf-agent-metrics.XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const std::string path = std::string(dir) + "/spiderflow.prom";
    ASSERT_TRUE(agent::write_metrics_textfile(path, agent_text()));
    ASSERT_TRUE(agent::write_metrics_textfile(path, "# second\n"));
    EXPECT_EQ(read_text_file(path), "# second\n");
    struct stat st{};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0044, 0044u);  // node_exporter's user reads it
    ::unlink(path.c_str());
    ::rmdir(dir);

    const std::string base = "broker = https://b:1\n";
    EXPECT_EQ(agent::parse_agent_conf(base, "agent.conf").metrics_textfile, "");  // off by default
    EXPECT_EQ(agent::parse_agent_conf(base + "metrics_textfile = /var/lib/prometheus/node-exporter/spiderflow.prom\n", "agent.conf").metrics_textfile,
              "/var/lib/prometheus/node-exporter/spiderflow.prom");
    // node_exporter would never read it.
    EXPECT_THROW(agent::parse_agent_conf(base + "metrics_textfile = /var/lib/prometheus/spiderflow.txt\n", "agent.conf"), InputError);
}
