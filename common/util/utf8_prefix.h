// The start of a text cut to a byte budget without splitting a UTF-8 character: a reason a
// client sent, kept to a bound, must still be valid UTF-8 when it is written as JSON (nlohmann's
// dump() throws on a cut character; the broker route fuzzer found a cancel reason cut that way).
#pragma once

#include <cstddef>
#include <string>

namespace spiderflow {

// At most `max_bytes` bytes of `text`, ending before any UTF-8 character the cut would split.
std::string utf8_prefix(const std::string& text, size_t max_bytes);

}  // namespace spiderflow
