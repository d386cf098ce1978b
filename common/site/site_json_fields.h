// JSON pieces shared by the delta and snapshot formats (doc/site-state.md), so that a job, a
// reservation or a link measurement reads and writes the same way in both. Internal to
// common/site. Readers are strict and name the field path in every InputError.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/site/site_delta.h"
#include "common/site/site_types.h"
#include "common/util/json_read.h"

namespace spiderflow::sitejson {

using jsonread::Object;
using nlohmann::json;
using nlohmann::ordered_json;

// Times are integers; kForever is written as null.
ordered_json time_value(SiteTime t);
SiteTime get_time(const Object& o, const char* key);

// Fields written into / read from an object the caller owns (the caller checks its keys, since
// a delta adds its "delta" field to the same object).
void put_allocation(ordered_json& o, const JobAllocation& a);
JobAllocation get_allocation(const Object& o);
void put_reservation(ordered_json& o, const Reservation& r);
Reservation get_reservation(const Object& o);
void put_measurement(ordered_json& o, const LinkMeasurement& m);
LinkMeasurement get_measurement(const Object& o);
// cluster, node, state, reason and (when present) features.
void put_node_state(ordered_json& o, const NodeStateChanged& s);
NodeStateChanged get_node_state(const Object& o);

}  // namespace spiderflow::sitejson
