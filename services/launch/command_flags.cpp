#include "services/launch/command_flags.h"

namespace spiderflow {

size_t find_flag(const std::vector<std::string>& command, const std::string& name) {
    for (size_t i = 0; i < command.size(); ++i)
        if (command[i] == name || command[i].rfind(name + "=", 0) == 0) return i;
    return std::string::npos;
}

std::string flag_value_at(const std::vector<std::string>& command, size_t i) {
    const size_t eq = command[i].find('=');
    if (eq != std::string::npos) return command[i].substr(eq + 1);
    return i + 1 < command.size() ? command[i + 1] : std::string();
}

}  // namespace spiderflow
