// One small update to a SiteState, as an agent publishes it and a broker streams it:
// SiteState::apply() takes one, delta_to_json()/delta_from_json() carry it (doc/site-state.md).
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/site/site_types.h"

namespace spiderflow {

struct NodeStateChanged {
    NodeName node;
    NodeState state = NodeState::up;
    std::string reason;                                 // why drained/down; empty when up
    std::optional<std::vector<std::string>> features;   // absent = features unchanged
    bool operator==(const NodeStateChanged&) const = default;
};

struct JobAllocated {
    JobAllocation allocation;
    bool operator==(const JobAllocated&) const = default;
};

struct JobReleased {
    std::string job;
    bool operator==(const JobReleased&) const = default;
};

struct ReservationAdded {
    Reservation reservation;
    bool operator==(const ReservationAdded&) const = default;
};

struct ReservationRemoved {
    std::string name;
    bool operator==(const ReservationRemoved&) const = default;
};

struct LinkMeasured {
    LinkMeasurement measurement;
    bool operator==(const LinkMeasured&) const = default;
};

using SiteDelta =
    std::variant<NodeStateChanged, JobAllocated, JobReleased, ReservationAdded, ReservationRemoved, LinkMeasured>;

// The "delta" field's value for each alternative: "node_state_changed", "job_allocated", ...
const char* delta_kind(const SiteDelta& delta);

// One JSON object per delta, compact unless indent >= 0.
std::string delta_to_json(const SiteDelta& delta, int indent = -1);
// Strict: unknown keys, wrong types and missing fields are InputError naming the field.
SiteDelta delta_from_json(const std::string& text, const std::string& source = "site delta");

}  // namespace spiderflow
