#include "common/util/metrics_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace spiderflow {
namespace {

bool valid_name(std::string_view n) {
    if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
    return std::all_of(n.begin(), n.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; });
}

bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

const char* type_name(MetricsText::Type t) {
    switch (t) {
    case MetricsText::Type::counter: return "counter";
    case MetricsText::Type::histogram: return "histogram";
    case MetricsText::Type::gauge: break;
    }
    return "gauge";
}

// HELP text escapes only \ and newline (the format's rule); quotes stay.
std::string help_text(std::string_view help) {
    std::string out;
    for (char c : help) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

}  // namespace

std::string metric_label_value(std::string_view value) {
    std::string out;
    for (char c : value) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

std::string metric_value(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char buf[32];
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        std::snprintf(buf, sizeof buf, "%.0f", v);
    } else {
        // The shortest of %.15g..%.17g that reads back as v.
        for (int digits = 15; digits <= 17; ++digits) {
            std::snprintf(buf, sizeof buf, "%.*g", digits, v);
            if (std::strtod(buf, nullptr) == v) break;
        }
    }
    return buf;
}

void MetricsText::family(std::string_view name, Type type, std::string_view help) {
    const std::string n(name);
    if (!valid_name(name)) throw std::logic_error("metrics: bad metric name '" + n + "'");
    if (std::find(families_.begin(), families_.end(), n) != families_.end()) {
        throw std::logic_error("metrics: family '" + n + "' declared twice");
    }
    if ((type == Type::counter) != ends_with(name, "_total")) {
        throw std::logic_error("metrics: '" + n + "': a counter's name ends in _total, and only a counter's");
    }
    families_.push_back(n);
    type_ = type;
    text_ += "# HELP " + n + " " + help_text(help) + "\n# TYPE " + n + " " + type_name(type) + "\n";
}

void MetricsText::sample(std::string_view name, const MetricLabels& labels, double value) {
    if (families_.empty()) throw std::logic_error("metrics: a sample before any family");
    const std::string_view family = families_.back();
    bool ok = name == family;
    if (type_ == Type::histogram) {
        ok = name.size() > family.size() && name.substr(0, family.size()) == family &&
             (name.substr(family.size()) == "_bucket" || name.substr(family.size()) == "_sum" ||
              name.substr(family.size()) == "_count");
    }
    if (!ok) throw std::logic_error("metrics: sample '" + std::string(name) + "' outside family '" + std::string(family) + "'");
    text_ += name;
    if (!labels.empty()) {
        text_ += '{';
        for (size_t i = 0; i < labels.size(); ++i) {
            if (!valid_name(labels[i].first)) throw std::logic_error("metrics: bad label name '" + labels[i].first + "'");
            if (i > 0) text_ += ',';
            text_ += labels[i].first + "=\"" + metric_label_value(labels[i].second) + "\"";
        }
        text_ += '}';
    }
    text_ += " " + metric_value(value) + "\n";
}

void MetricsText::histogram(std::string_view name, const MetricLabels& labels, const std::vector<double>& bounds,
                            const std::vector<uint64_t>& cumulative, uint64_t count, double sum) {
    const std::string n(name);
    for (size_t i = 0; i < bounds.size() && i < cumulative.size(); ++i) {
        MetricLabels with_le = labels;
        with_le.emplace_back("le", metric_value(bounds[i]));
        sample(n + "_bucket", with_le, static_cast<double>(cumulative[i]));
    }
    MetricLabels inf = labels;
    inf.emplace_back("le", "+Inf");
    sample(n + "_bucket", inf, static_cast<double>(count));
    sample(n + "_sum", labels, sum);
    sample(n + "_count", labels, static_cast<double>(count));
}

}  // namespace spiderflow
