// "a,b,,c" -> {"a", "b", "c"}: the comma lists of Slurm's records and of our options.
#pragma once

#include <string>
#include <vector>

namespace spiderflow {

// Items between commas, empty ones dropped, nothing trimmed.
std::vector<std::string> split_list(const std::string& s);

}  // namespace spiderflow
