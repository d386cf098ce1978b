// `spiderflow topo check`, implemented in topo_check.cpp; cmd_topo.cpp forwards to it.
#pragma once

#include <string>
#include <vector>

namespace spiderflow::cli {

// args[0] is "check", the rest its options. Returns an exit status as in command.h.
int run_topo_check(const std::vector<std::string>& args);

}  // namespace spiderflow::cli
