// The bodies of the broker's /v1 routes (doc/broker-api.md), each written down once: the broker's
// routes write them, the agent and the `spiderflow` command read them (and write the requests the
// broker reads). Readers are strict, as every reader of the project's files is (common/util/
// json_read.h): an unknown key, a missing one or a bad value is an InputError naming `source`
// and the field path. Bodies that are one of the project's own formats (a site state, a site
// delta, a cross-site job, an order, a report) are read and written by that format's own code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/site/site_delta.h"
#include "services/coalloc/coallocator.h"
#include "services/probe/probe_protocol.h"

namespace spiderflow::broker_api {

constexpr int kVersion = 1;

// GET /v1/federation: the federation topology and the merged site state, as their own JSON texts.
struct Federation {
    uint64_t epoch = 0;
    nlohmann::json topology;  // read with parse_spiderflow_topology
    nlohmann::json state;     // read with site_state_from_json over that topology (or the reader's own)
};
std::string federation_to_text(uint64_t epoch, const std::string& topology_json, const std::string& state_json);
Federation federation_from_text(const std::string& text, const std::string& source);

// GET /v1/federation/deltas?since=EPOCH: what the merged state changed by since that epoch, as
// site deltas in the merged state's names; applied in order to the state of epoch `since`, they
// give the state of `epoch`. 410 when the broker cannot say it (read /v1/federation then).
struct FederationDeltas {
    uint64_t epoch = 0, since = 0;
    std::vector<SiteDelta> deltas;
};
std::string federation_deltas_to_text(const FederationDeltas& d);
FederationDeltas federation_deltas_from_text(const std::string& text, const std::string& source);

// GET /v1/clusters: what each cluster of the topology holds and when it last published.
struct ClusterSummary {
    std::string name;
    int nodes = 0, gpus = 0, free_gpus = 0;
    int64_t updated_at = 0;  // 0: never published (then no updated_at and age_s in the body)
    int64_t age_s = 0;
    // The last call of its agent with its token (a heartbeat, a read of the federation, orders),
    // which publishes only when something changed: 0 when this broker has not heard it since it
    // started (then no contact_at in the body).
    int64_t contact_at = 0;
    bool published() const { return updated_at > 0; }
};
struct Clusters {
    uint64_t epoch = 0;
    std::vector<ClusterSummary> clusters;
};
nlohmann::json clusters_to_json(const Clusters& c);
Clusters clusters_from_text(const std::string& text, const std::string& source);

// PUT /v1/clusters/{name}/inventory answers {"epoch"}; POST .../deltas takes {"deltas": [...]}
// and answers {"epoch", "applied"}.
struct Published {
    uint64_t epoch = 0;
    size_t applied = 0;  // deltas only
};
nlohmann::json inventory_answer_to_json(uint64_t epoch);
nlohmann::json deltas_answer_to_json(uint64_t epoch, size_t applied);
Published published_from_text(const std::string& text, const std::string& source);
std::string deltas_to_text(const std::vector<SiteDelta>& deltas);
std::vector<SiteDelta> deltas_from_text(const std::string& text, const std::string& source);

// POST /v1/xjobs answers {"id", "seq", "state"}; POST /v1/xjobs/{id}/cancel takes {"reason"}
// (optional; an empty body too) and answers {"id", "state"}.
struct XJobState {
    std::string id;
    uint64_t seq = 0;  // submit only
    std::string state;
};
nlohmann::ordered_json submitted_to_json(const coalloc::XJob& job);
nlohmann::ordered_json cancelled_to_json(const std::string& id, const std::string& state);
XJobState xjob_state_from_text(const std::string& text, const std::string& source);
std::string cancel_to_text(const std::string& reason);
// The reason given; nullopt for an empty body, one without a reason or an empty reason.
std::optional<std::string> cancel_reason_from_text(const std::string& text, const std::string& source);

// GET /v1/xjobs answers {"api_version", "xjobs": [job...]}; GET /v1/xjobs/{id} one job. Jobs
// without their scripts (readers see every job).
nlohmann::ordered_json xjobs_to_json(const std::vector<const coalloc::XJob*>& jobs);
std::vector<coalloc::XJob> xjobs_from_text(const std::string& text, const std::string& source);
coalloc::XJob xjob_from_text(const std::string& text, const std::string& source);

// GET /v1/clusters/{name}/orders answers {"api_version", "orders": [...]}; POST .../reports takes
// {"reports": [...]} and answers {"accepted", "ignored"}.
nlohmann::ordered_json orders_to_json(const std::vector<coalloc::Order>& orders);
std::vector<coalloc::Order> orders_from_text(const std::string& text, const std::string& source);
std::string reports_to_text(const std::vector<coalloc::Report>& reports);
// The array of {"reports": [...]}, the one key, for the reader of each element.
nlohmann::json report_batch_from_text(const std::string& text, const std::string& source);
std::vector<coalloc::Report> reports_from_text(const std::string& text, const std::string& source);
struct Tally {
    int accepted = 0, ignored = 0;
};
nlohmann::ordered_json tally_to_json(const Tally& t);
Tally tally_from_text(const std::string& text, const std::string& source);

// POST /v1/probes takes {"link": "A-B"} and answers the probe; GET /v1/probes {"api_version",
// "probes": [...]}; GET /v1/probes/{id} one probe.
struct ProbeStatus {
    std::string id, a, b, state, requested_by;
    int64_t created_at = 0, state_since = 0;
    std::string host;              // empty: not said
    bool measured = false;         // state "done": gbps and rtt_ms are the figure
    double gbps = 0, rtt_ms = 0;
    std::string reason;            // empty: not said
};
std::string probe_request_to_text(const std::string& link);
std::string probe_request_from_text(const std::string& text, const std::string& source);
nlohmann::ordered_json probe_to_json(const ProbeStatus& p);
ProbeStatus probe_from_text(const std::string& text, const std::string& source);
nlohmann::ordered_json probes_to_json(const std::vector<ProbeStatus>& probes);
std::vector<ProbeStatus> probes_from_text(const std::string& text, const std::string& source);

// GET /v1/clusters/{name}/probes answers {"api_version", "probes": [order...]}; POST takes
// {"reports": [...]} and answers a Tally.
nlohmann::ordered_json probe_orders_to_json(const std::vector<probe::ProbeOrder>& orders);
std::vector<probe::ProbeOrder> probe_orders_from_text(const std::string& text, const std::string& source);
std::string probe_reports_to_text(const std::vector<probe::ProbeReport>& reports);
std::vector<probe::ProbeReport> probe_reports_from_text(const std::string& text, const std::string& source);

}  // namespace spiderflow::broker_api
