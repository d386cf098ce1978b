// Cross-site jobs, orders and reports as JSON (doc/broker-api.md, "Cross-site jobs"): what the
// broker stores and serves, what a home cluster submits, what the agents fetch and report.
// Readers are strict: an unknown key or a bad value is an InputError naming the field path.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "services/coalloc/coallocator.h"

namespace spiderflow::coalloc {

// The whole job as stored; without its script as GET /v1/xjobs shows it (readers see every job).
nlohmann::ordered_json xjob_to_json(const XJob& job, bool with_script = true);
// With with_script false, a job without its script is read too (its script stays empty).
XJob xjob_from_json(const nlohmann::json& j, const std::string& source, bool with_script = true);

// A home cluster's request: {"id", "user", "account", "time_limit_s", "script", "parts":
// [{"cluster", "nodes", "gpus_per_node", "ranks"}]}. Only these keys; the script (its text, at
// most 1 MiB, starting with "#!") is what every part runs.
XJob xjob_request_from_json(const nlohmann::json& j, const std::string& source);
nlohmann::ordered_json xjob_request_to_json(const XJob& job);

nlohmann::ordered_json order_to_json(const Order& o);
Order order_from_json(const nlohmann::json& j, const std::string& source, const std::string& path);

nlohmann::ordered_json report_to_json(const Report& r);
Report report_from_json(const nlohmann::json& j, const std::string& source, const std::string& path);

}  // namespace spiderflow::coalloc
