// Subcommands of `spiderflow` register themselves: one file per command, no central if-chain.
//   static const spiderflow::cli::Registration reg{"topo", "show/check/generate topologies", &run_topo};
#pragma once

#include <string>
#include <vector>

namespace spiderflow::cli {

// args[0] is the subcommand name. Returns the exit status: 0 ok, 1 findings/failure,
// 2 bad input or usage.
using CommandFn = int (*)(const std::vector<std::string>& args);

struct Command {
    std::string name;
    std::string summary;
    CommandFn run;
};

std::vector<Command>& registry();

struct Registration {
    Registration(std::string name, std::string summary, CommandFn run) {
        registry().push_back({std::move(name), std::move(summary), run});
    }
};

// Exit statuses shared by every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;
constexpr int kExitBadInput = 2;

}  // namespace spiderflow::cli
