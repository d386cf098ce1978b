// Enums whose names (on the wire, in files) are a table indexed by the enum's value: reading a
// name back is one lookup, whatever the enum.
#pragma once

#include <cstddef>
#include <string>

namespace spiderflow {

// False when `name` is none of `names`; else *out is the enum value at its index.
template <typename Enum, size_t N>
bool enum_from_name(const char* const (&names)[N], const std::string& name, Enum* out) {
    for (size_t i = 0; i < N; ++i) {
        if (name == names[i]) {
            *out = static_cast<Enum>(i);
            return true;
        }
    }
    return false;
}

}  // namespace spiderflow
