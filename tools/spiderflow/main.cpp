// `spiderflow`: dispatches to the registered subcommands; bad input never escapes as a crash.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>

#include "common/util/errors.h"
#include "config.h"
#include "tools/spiderflow/command.h"

namespace spiderflow::cli {

std::vector<Command>& registry() {
    static std::vector<Command> commands;
    return commands;
}

namespace {

void print_usage(std::ostream& out) {
    auto commands = registry();
    std::sort(commands.begin(), commands.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
    out << "usage: spiderflow COMMAND [ARGS...]\n\n"
           "Plans and runs one LLM training job across several Slurm clusters.\n\ncommands:\n";
    for (const auto& c : commands) {
        out << "  " << c.name << std::string(c.name.size() < 12 ? 12 - c.name.size() : 1, ' ') << c.summary << "\n";
    }
    out << "\n'spiderflow COMMAND --help' describes each command.\n";
}

}  // namespace
}  // namespace spiderflow::cli

int main(int argc, char** argv) {
    using namespace spiderflow::cli;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        print_usage(std::cerr);
        return kExitBadInput;
    }
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        print_usage(std::cout);
        return kExitOk;
    }
    if (args[0] == "--version") {
        std::cout << "spiderflow " << PACKAGE_VERSION << "\n";
        return kExitOk;
    }
    for (const auto& c : registry()) {
        if (c.name != args[0]) continue;
        try {
            return c.run(args);
        } catch (const spiderflow::InputError& e) {
            std::cerr << "spiderflow: error: " << e.what() << "\n";
            return kExitBadInput;
        } catch (const spiderflow::InfeasibleError& e) {
            std::cerr << "spiderflow: cannot satisfy request: " << e.what() << "\n";
            return kExitBadInput;
        } catch (const std::exception& e) {
            std::cerr << "spiderflow: internal error: " << e.what() << "\n";
            return 3;
        }
    }
    std::cerr << "spiderflow: unknown command '" << args[0] << "'\n\n";
    print_usage(std::cerr);
    return kExitBadInput;
}
