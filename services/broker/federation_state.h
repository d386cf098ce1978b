// The broker's picture of the federation: one SiteState per cluster, each over the shared
// federation topology but holding only that cluster's nodes, jobs, reservations and the link
// figures it measured. A cluster's token writes only its own part, so one cluster can never
// overwrite another's; the merged view that planners read is made from the parts.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/site/site_delta.h"
#include "common/site/site_state.h"
#include "services/broker/broker_store.h"

namespace spiderflow::broker {

class FederationState {
public:
    explicit FederationState(std::shared_ptr<const Topology> topology);

    const Topology& topology() const { return *topology_; }
    const std::shared_ptr<const Topology>& shared_topology() const { return topology_; }
    bool has_cluster(const std::string& name) const;

    // A cluster's whole part from its snapshot (site_state_to_json format, over this topology).
    // Throws InputError naming the entry when the snapshot is malformed, made over another
    // topology, or touches anything outside `cluster`; nothing changes then.
    void replace_part(const std::string& cluster, const std::string& snapshot_json, int64_t now);
    // Deltas for one cluster, all or nothing: each must concern `cluster` only. An empty list
    // after a part exists only marks the part as current (a heartbeat; the epoch stays).
    void apply_deltas(const std::string& cluster, const std::vector<SiteDelta>& deltas, int64_t now);

    // One cluster's part as a snapshot (what the store keeps), and when it last changed.
    std::string part_json(const std::string& cluster) const;
    int64_t updated_at(const std::string& cluster) const;  // 0 = never published

    // The federation as planners see it: every part merged. Job and reservation names carry
    // their cluster ("b:1234"), since two clusters' schedulers number jobs independently. Made
    // once per change.
    const SiteState& merged() const;
    // The same, to read outside the broker's lock: it never changes once made.
    std::shared_ptr<const SiteState> merged_snapshot() const;
    // Changes with every accepted write; kept by the store across restarts.
    uint64_t epoch() const { return epoch_; }
    // After a reload from the store: the change log starts again there.
    void restore(uint64_t epoch);
    // A standby following the active broker through the store: the parts written since this
    // state's epoch, and the store's epoch. One entry of the
    // change log says them all, so delta reads work on a standby too, from any epoch it served.
    // A part that no longer fits the topology is left out (`dropped` names it); a whole read
    // covers the gap then.
    void follow(const std::vector<StoredPart>& parts, uint64_t epoch, std::vector<std::string>* dropped);

    // What the merged view changed by since epoch `since`, as deltas in its own names (the
    // federation's "b:1234"): the merged view at `since` with these applied is the merged view
    // now (epochs aside). nullopt when the log no longer reaches back to `since` (it keeps the
    // last kChangeLogEpochs writes), `since` is no epoch this state was at (a standby steps over
    // the active broker's epochs between two looks at the store), or a change since cannot be said as deltas (a measurement
    // dropped by a new inventory): read the whole view then.
    std::optional<std::vector<SiteDelta>> changes_since(uint64_t since) const;
    static constexpr size_t kChangeLogEpochs = 16384;

private:
    void check_owned(const std::string& cluster, const SiteState& part, const std::string& source) const;
    // The newest measurement of link `li` over both ends' parts, as merged() picks it.
    std::optional<LinkMeasurement> newest_measurement(int li) const;
    std::map<int, std::optional<LinkMeasurement>> newest_of_links(const SiteState* a, const SiteState* b) const;
    // One accepted write's change to the merged view: `deltas` (a part's own, in the part's
    // names) renamed, and each link whose newest figure moved.
    void log_change(const std::string& cluster, const std::vector<SiteDelta>& deltas,
                    const std::map<int, std::optional<LinkMeasurement>>& links_before);

    struct Change {
        uint64_t epoch = 0;                // the epoch this write made (increasing along the log)
        std::vector<SiteDelta> deltas;     // in the merged view's names
        bool sayable = true;               // false: only a whole read says it
    };

    std::shared_ptr<const Topology> topology_;
    std::map<std::string, SiteState> parts_;
    std::map<std::string, int64_t> updated_;
    uint64_t epoch_ = 0;
    mutable std::shared_ptr<const SiteState> merged_;
    SiteState blank_;                      // an empty state over the topology, to copy: cheaper than making one
    std::deque<Change> changes_;           // oldest first, epochs consecutive
    uint64_t log_base_ = 0;                // changes_since reaches back to this epoch
};

// "b:1234" for job 1234 of cluster b.
std::string federation_name(const std::string& cluster, const std::string& local);

}  // namespace spiderflow::broker
