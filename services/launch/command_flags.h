// Reading a flag the user's own command line already gives, for the launch writers that add
// the plan's flags to it without contradicting it.
#pragma once

#include <string>
#include <vector>

namespace spiderflow {

// Where the command gives `name` ("--x v", "--x=v" or the bare switch); npos when it does not.
size_t find_flag(const std::vector<std::string>& command, const std::string& name);
// The value of the flag at `i` ("--x=v" or the word after "--x"); empty when none follows.
std::string flag_value_at(const std::vector<std::string>& command, size_t i);

}  // namespace spiderflow
