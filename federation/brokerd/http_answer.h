// How every broker route answers: JSON bodies, errors as {"error": "..."}, Unix seconds; and how
// an agent's batch of reports is read.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <ctime>
#include <string>

#include <nlohmann/json.hpp>

#include "common/util/errors.h"
#include "common/util/json_read.h"

namespace spiderflow::broker {

inline int64_t unix_now() { return static_cast<int64_t>(std::time(nullptr)); }

template <class Json>
void answer(httplib::Response& res, int status, const Json& body) {
    res.status = status;
    res.set_content(body.dump() + "\n", "application/json");
}

inline void error(httplib::Response& res, int status, const std::string& why) {
    answer(res, status, nlohmann::json{{"error", why}});
}

// The array of `{"reports": [...]}`, the one key; InputError naming `source` otherwise.
inline nlohmann::json report_batch(const std::string& body_text, const std::string& source) {
    const nlohmann::json body = jsonread::parse(body_text, source);
    jsonread::require_object(body, source, "");
    jsonread::only_keys(body, {"reports"}, source, "");
    if (!body.contains("reports") || !body.at("reports").is_array()) {
        throw InputError(source, 0, "reports", "expected an array of reports");
    }
    return body.at("reports");
}

}  // namespace spiderflow::broker
