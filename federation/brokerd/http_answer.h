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

// Invalid UTF-8 in a string (a parser's message quoting the bytes it stopped at) is written as
// U+FFFD: dump() would throw otherwise, past the route's own error handling, and the client would
// get a bare 500 (the route fuzzer's finding).
template <class Json>
void answer(httplib::Response& res, int status, const Json& body) {
    res.status = status;
    res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n", "application/json");
}

// "Authorization: Bearer TOKEN" -> TOKEN; empty without one.
inline std::string bearer_token(const httplib::Request& req) {
    const std::string h = req.get_header_value("Authorization");
    const std::string prefix = "Bearer ";
    return h.rfind(prefix, 0) == 0 ? h.substr(prefix.size()) : std::string();
}

inline void error(httplib::Response& res, int status, const std::string& why) {
    answer(res, status, nlohmann::json{{"error", why}});
}

}  // namespace spiderflow::broker
