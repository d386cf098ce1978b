// What `spiderflow federation` shows, as typed rows: built once from the broker's answers
// (/v1/federation, /v1/clusters), then written as JSON or as text from the same rows, so the two
// formats cannot disagree.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/site/site_state.h"
#include "services/broker_client/broker_api_types.h"

namespace spiderflow::cli {

struct ClusterRow {
    std::string name;
    std::map<std::string, int> free_gpus;   // by GPU type
    int drained_nodes = 0, down_nodes = 0;
    bool published = false;
    int64_t age_s = 0;                       // since its last publication, when published
    // Since its agent last called the broker (it publishes only on a change or a heartbeat); -1
    // when the broker has not heard it since it started (or is older and does not say).
    int64_t heard_age_s = -1;
};

struct LinkRow {
    std::string a, b;
    double gbps = 0, latency_ms = 0;                    // the figure the planner uses
    double declared_gbps = 0, declared_latency_ms = 0;  // the topology's
    bool measured = false;
    std::string source;                                  // when measured
    SiteTime measured_at = 0;
    SiteTime age_s = 0;
};

struct FederationReport {
    uint64_t epoch = 0;
    std::vector<ClusterRow> clusters;
    std::vector<LinkRow> links;
};

// `published` lists the clusters the broker has heard from (GET /v1/clusters).
FederationReport federation_report(const Topology& topology, const SiteState& state, uint64_t epoch,
                                   const broker_api::Clusters& published, SiteTime now);

nlohmann::json report_to_json(const FederationReport& r);
// The text table: one line per cluster, then one per link with its declared and used figures.
std::string report_to_text(const FederationReport& r, const std::string& broker_url);

}  // namespace spiderflow::cli
