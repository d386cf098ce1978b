// The JSON snapshot of a whole SiteState overlay (doc/site-state.md): what an agent publishes
// on start, what a broker hands a fresh reader, what `spiderflow query --state` and
// `plan --state` read. It names its topology by name and content hash and is refused over any
// other topology.
#pragma once

#include <memory>
#include <string>

#include "common/site/site_state.h"

namespace spiderflow {

constexpr int kSiteStateFormatVersion = 1;

// Deterministic: nodes in topology order (only those not plainly up without features), jobs
// and reservations by name, measured links by topology link order.
std::string site_state_to_json(const SiteState& state, int indent = 2);

// Strict: unknown keys, wrong types, another version or another topology's hash are InputError
// naming the field. Entries are replayed through SiteState's own checks (an over-allocation in
// a snapshot is refused like one applied live); the snapshot's epoch is kept.
SiteState site_state_from_json(const std::string& text, std::shared_ptr<const Topology> topology,
                               const std::string& source = "site state snapshot");
SiteState read_site_state(const std::string& path, std::shared_ptr<const Topology> topology);

}  // namespace spiderflow
