// Base64 (RFC 4648, with padding): a plan as it travels inside a job (plan_transport.h), a
// picture inside the status page (a data: URL).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace spiderflow {

std::string base64(std::string_view in);
// Decodes in[from..]; false on a length or character that is not base64 (out is then undefined).
bool unbase64(std::string_view in, size_t from, std::string* out);

}  // namespace spiderflow
