// The closest known name to one that looks like a typo of it: for messages that say "did you
// mean 'cross_site'?" (config keys, node and switch names in the topology checks).
#pragma once

#include <string>
#include <vector>

namespace spiderflow {

// The closest of `candidates` to `name` when it is within two edits (and under half the name),
// else empty; empty too when two candidates are equally close (a guess among equals misleads).
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace spiderflow
