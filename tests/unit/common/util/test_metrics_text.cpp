// The one Prometheus text writer: conventions it refuses to break, escaping, numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/util/metrics_text.h"

using namespace spiderflow;

TEST(MetricsText, WritesHelpTypeAndEscapedLabels) {
    MetricsText m;
    m.family("sf_link_rtt_seconds", MetricsText::Type::gauge, "A link's RTT.\nTwo lines \\ kept");
    m.sample("sf_link_rtt_seconds", {{"link", "a\"b\\c\nd"}}, 0.049);
    EXPECT_EQ(m.str(),
              "# HELP sf_link_rtt_seconds A link's RTT.\\nTwo lines \\\\ kept\n"
              "# TYPE sf_link_rtt_seconds gauge\n"
              "sf_link_rtt_seconds{link=\"a\\\"b\\\\c\\nd\"} 0.049\n");
    EXPECT_EQ(m.families(), std::vector<std::string>{"sf_link_rtt_seconds"});
}

TEST(MetricsText, RefusesWhatPromtoolWouldFlag) {
    MetricsText m;
    EXPECT_THROW(m.family("sf_epoch", MetricsText::Type::counter, ""), std::logic_error);  // a counter without _total
    EXPECT_THROW(m.family("sf_jobs_total", MetricsText::Type::gauge, ""), std::logic_error);  // _total on a gauge
    EXPECT_THROW(m.family("9lives", MetricsText::Type::gauge, ""), std::logic_error);
    EXPECT_THROW(m.sample("sf_x", 1), std::logic_error);  // no family yet
    m.family("sf_requests_total", MetricsText::Type::counter, "");
    EXPECT_THROW(m.family("sf_requests_total", MetricsText::Type::counter, ""), std::logic_error);  // twice
    EXPECT_THROW(m.sample("sf_other_total", 1), std::logic_error);                                // outside the family
    EXPECT_THROW(m.sample("sf_requests_total", {{"bad-label", "x"}}, 1), std::logic_error);
}

TEST(MetricsText, HistogramsAndNumbers) {
    MetricsText m;
    m.family("sf_call_seconds", MetricsText::Type::histogram, "Calls.");
    m.histogram("sf_call_seconds", {{"cluster", "a"}}, {0.5, 1}, {2, 3}, 4, 2.75);
    EXPECT_NE(m.str().find("sf_call_seconds_bucket{cluster=\"a\",le=\"0.5\"} 2\n"), std::string::npos);
    EXPECT_NE(m.str().find("sf_call_seconds_bucket{cluster=\"a\",le=\"+Inf\"} 4\n"), std::string::npos);
    EXPECT_NE(m.str().find("sf_call_seconds_sum{cluster=\"a\"} 2.75\n"), std::string::npos);
    EXPECT_NE(m.str().find("sf_call_seconds_count{cluster=\"a\"} 4\n"), std::string::npos);
    EXPECT_EQ(metric_value(1796300000), "1796300000");
    EXPECT_EQ(metric_value(0.1), "0.1");
    EXPECT_EQ(metric_value(1.0 / 3), "0.3333333333333333");
    EXPECT_EQ(metric_value(std::numeric_limits<double>::infinity()), "+Inf");
    EXPECT_EQ(metric_value(std::nan("")), "NaN");
}
