// JSON pieces shared by the delta and snapshot formats (doc/site-state.md), so that a job, a
// reservation or a link measurement reads and writes the same way in both. Internal to
// libspiderflow/site. Readers are strict and name the field path in every InputError.
#pragma once

#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "libspiderflow/site/site_delta.h"
#include "libspiderflow/site/site_types.h"

namespace spiderflow::sitejson {

using nlohmann::json;
using nlohmann::ordered_json;

// Times are integers; kForever is written as null.
ordered_json time_value(SiteTime t);
SiteTime get_time(const json& obj, const char* key, const std::string& source, const std::string& path);

// The member `key` of obj, InputError "missing" when absent.
const json& member(const json& obj, const char* key, const std::string& source, const std::string& path);
std::string get_name(const json& obj, const char* key, const std::string& source, const std::string& path);

// Fields written into / read from an object the caller owns (the caller checks its keys, since
// a delta adds its "delta" field to the same object).
void put_allocation(ordered_json& o, const JobAllocation& a);
JobAllocation get_allocation(const json& o, const std::string& source, const std::string& path);
void put_reservation(ordered_json& o, const Reservation& r);
Reservation get_reservation(const json& o, const std::string& source, const std::string& path);
void put_measurement(ordered_json& o, const LinkMeasurement& m);
LinkMeasurement get_measurement(const json& o, const std::string& source, const std::string& path);
// cluster, node, state, reason and (when present) features.
void put_node_state(ordered_json& o, const NodeStateChanged& s);
NodeStateChanged get_node_state(const json& o, const std::string& source, const std::string& path);

}  // namespace spiderflow::sitejson
