// Runs a command given as an argument vector (never through a shell: nothing in it is
// interpreted), for the tc commands of enforcement. An interface so the decision logic can be
// tested with a recording fake instead of a real `tc`.
#pragma once

#include <string>
#include <vector>

namespace spiderflow::coflow {

using Argv = std::vector<std::string>;

struct CommandResult {
    int status = 0;        // exit status; 127 when it could not be started, 128 when killed
    std::string output;    // its stdout (only when asked for)
};

class CommandRunner {
public:
    virtual ~CommandRunner() = default;
    // quiet: its stderr goes to /dev/null (clean-up steps whose failure only means "nothing
    // there"); capture: its stdout is returned instead of passed through.
    virtual CommandResult run(const Argv& argv, bool quiet, bool capture) = 0;
};

// fork + execvp; waits for the command.
class ProcessRunner : public CommandRunner {
public:
    CommandResult run(const Argv& argv, bool quiet, bool capture) override;
};

}  // namespace spiderflow::coflow
