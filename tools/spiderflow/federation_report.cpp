#include "tools/spiderflow/federation_report.h"

#include <cstdio>

namespace spiderflow::cli {
namespace {

ClusterRow cluster_row(const Topology& t, const SiteState& state, size_t c, const broker_api::Clusters& published,
                       SiteTime now) {
    ClusterRow row;
    row.name = t.clusters[c].name;
    for (size_t n = 0; n < t.clusters[c].nodes.size(); ++n) {
        const NodeRef ref{static_cast<int>(c), static_cast<int>(n)};
        row.free_gpus[t.clusters[c].nodes[n].gpu_type] += state.free_gpus(ref, now);
        row.drained_nodes += state.use(ref).state == NodeState::drained;
        row.down_nodes += state.use(ref).state == NodeState::down;
    }
    for (const broker_api::ClusterSummary& b : published.clusters) {
        if (b.name != row.name) continue;
        row.published = b.published();
        if (row.published) row.age_s = b.age_s;
        // On the broker's clock, as age_s is: its now is updated_at + age_s.
        if (row.published && b.contact_at > 0) row.heard_age_s = b.age_s - (b.contact_at - b.updated_at);
    }
    return row;
}

LinkRow link_row(const Topology& t, const Link& link, const LinkFigure& fig, SiteTime now) {
    LinkRow row;
    row.a = t.clusters[static_cast<size_t>(link.a)].name;
    row.b = t.clusters[static_cast<size_t>(link.b)].name;
    row.gbps = fig.bandwidth_Bps * 8 / 1e9;
    row.latency_ms = fig.latency_s * 1e3;
    row.declared_gbps = link.bandwidth_Bps * 8 / 1e9;
    row.declared_latency_ms = link.latency_s * 1e3;
    row.measured = fig.measured;
    if (row.measured) {
        row.source = fig.source;
        row.measured_at = fig.timestamp;
        row.age_s = now - fig.timestamp;
    }
    return row;
}

// printf's padding, which the table's columns rely on, into a string of any length.
template <typename... Args>
std::string line(const char* fmt, Args... args) {
    std::string out(static_cast<size_t>(std::snprintf(nullptr, 0, fmt, args...)), '\0');
    std::snprintf(out.data(), out.size() + 1, fmt, args...);
    return out;
}

}  // namespace

FederationReport federation_report(const Topology& topology, const SiteState& state, uint64_t epoch,
                                   const broker_api::Clusters& published, SiteTime now) {
    FederationReport r;
    r.epoch = epoch;
    for (size_t c = 0; c < topology.clusters.size(); ++c) r.clusters.push_back(cluster_row(topology, state, c, published, now));
    for (const Link& link : topology.links) {
        const auto fig = state.effective_link(link.a, link.b);
        if (fig) r.links.push_back(link_row(topology, link, *fig, now));
    }
    return r;
}

nlohmann::json report_to_json(const FederationReport& r) {
    nlohmann::json out = {{"epoch", r.epoch}, {"clusters", nlohmann::json::array()}, {"links", nlohmann::json::array()}};
    for (const ClusterRow& c : r.clusters) {
        nlohmann::json entry = {{"name", c.name}, {"free_gpus", c.free_gpus}, {"drained_nodes", c.drained_nodes},
                                {"down_nodes", c.down_nodes}, {"published", c.published}};
        if (c.published) entry["age_s"] = c.age_s;
        if (c.heard_age_s >= 0) entry["heard_age_s"] = c.heard_age_s;
        out["clusters"].push_back(entry);
    }
    for (const LinkRow& l : r.links) {
        nlohmann::json link = {{"a", l.a}, {"b", l.b}, {"gbps", l.gbps}, {"latency_ms", l.latency_ms},
                               {"declared_gbps", l.declared_gbps}, {"declared_latency_ms", l.declared_latency_ms},
                               {"measured", l.measured}};
        if (l.measured) {
            link["source"] = l.source;
            link["measured_at"] = l.measured_at;
            link["age_s"] = l.age_s;
        }
        out["links"].push_back(link);
    }
    return out;
}

std::string report_to_text(const FederationReport& r, const std::string& broker_url) {
    std::string out = "federation at " + broker_url + ", epoch " + std::to_string(r.epoch) + "\n\n";
    out += line("%-16s %-10s %-28s %s\n", "cluster", "heard", "free GPUs", "nodes out");
    for (const ClusterRow& c : r.clusters) {
        std::string free;
        for (const auto& [type, n] : c.free_gpus) free += (free.empty() ? "" : ", ") + std::to_string(n) + " " + type;
        // When its agent last called, not when something last changed: a live agent on a quiet
        // cluster publishes only a heartbeat a minute, and would look silent.
        const int64_t heard = c.heard_age_s >= 0 ? c.heard_age_s : c.age_s;
        const std::string age = c.published ? std::to_string(heard) + " s ago" : "never";
        out += line("%-16s %-10s %-28s %d drained, %d down\n", c.name.c_str(), age.c_str(), free.c_str(), c.drained_nodes,
                    c.down_nodes);
    }
    // What the planner uses beside what the topology declares: a measured figure well below
    // the declared one is a link to look at.
    out += line("\n%-28s %-20s %-20s %s\n", "link", "declared", "in use", "figure");
    for (const LinkRow& l : r.links) {
        const std::string name = l.a + " <-> " + l.b;
        const std::string declared = line("%.3g Gbps %.3g ms", l.declared_gbps, l.declared_latency_ms);
        const std::string used = line("%.3g Gbps %.3g ms", l.gbps, l.latency_ms);
        const std::string figure =
            l.measured ? "measured by " + l.source + ", " + std::to_string(l.age_s) + " s ago" : "declared";
        out += line("%-28s %-20s %-20s %s\n", name.c_str(), declared.c_str(), used.c_str(), figure.c_str());
    }
    return out;
}

}  // namespace spiderflow::cli
