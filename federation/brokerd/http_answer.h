// How every broker route answers: JSON bodies, errors as {"error": "..."}, Unix seconds (the
// bodies themselves: services/broker_client/broker_api_types.h).
#pragma once

#include <httplib.h>

#include <cstdint>
#include <ctime>
#include <string>

#include <nlohmann/json.hpp>


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

}  // namespace spiderflow::broker
