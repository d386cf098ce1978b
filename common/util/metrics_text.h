// Prometheus' text exposition format (version 0.0.4), the one writer of the broker's /metrics
// and the agent's node_exporter textfile. That format rather than OpenMetrics' own: node_exporter's
// textfile collector reads only it (OpenMetrics' counter families and "# EOF" it would misread),
// Prometheus scrapes both, and node_exporter serves the textfile as OpenMetrics to a scraper that
// asks. The writer holds the conventions the code can check (a counter ends in _total, a family
// is declared once, a sample belongs to the family declared last), so that `promtool check
// metrics` finds nothing to say.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spiderflow {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class MetricsText {
public:
    enum class Type { gauge, counter, histogram };

    // Starts a family: its HELP and TYPE lines, written even when no sample follows, so that a
    // reader (a dashboard check, promtool) sees every name an exporter has. Throws
    // std::logic_error on a name declared twice, a counter not ending in _total or a bad name.
    void family(std::string_view name, Type type, std::string_view help);
    // One sample of the family declared last: `name` is the family's, or for a histogram its
    // _bucket, _sum or _count. Throws std::logic_error otherwise.
    void sample(std::string_view name, const MetricLabels& labels, double value);
    void sample(std::string_view name, double value) { sample(name, {}, value); }
    // A histogram's samples from its upper bounds and the counts of observations at most each
    // (cumulative), with their count and sum; `labels` go before le.
    void histogram(std::string_view name, const MetricLabels& labels, const std::vector<double>& bounds,
                   const std::vector<uint64_t>& cumulative, uint64_t count, double sum);

    const std::string& str() const { return text_; }
    // Every family declared, in order.
    const std::vector<std::string>& families() const { return families_; }

private:
    std::string text_;
    std::vector<std::string> families_;
    Type type_ = Type::gauge;
};

// A label value as the format writes it between quotes: \ " and newline escaped.
std::string metric_label_value(std::string_view value);
// A sample's value: integers exactly, +Inf, -Inf, NaN, else the shortest exact decimal.
std::string metric_value(double v);

}  // namespace spiderflow
