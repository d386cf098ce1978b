// `--key value` options and `--flag`s after a subcommand's positional words, for the commands
// whose options are simple (coflow, simulate). --help and -h always parse as the flag "--help".
#pragma once

#include <map>
#include <string>
#include <vector>

namespace spiderflow::cli {

struct Options {
    std::vector<std::string> words;
    std::map<std::string, std::string> values;
    std::vector<std::string> flags;

    bool flag(const std::string& f) const;
    std::string get(const std::string& k, const std::string& def = "") const;
    // Throws InputError naming the option when the value is not a number.
    double number(const std::string& k, double def) const;
};

// args[first..]: words, flags (those in flag_names) and --key value pairs. Throws InputError for
// an option without its value.
Options parse_options(const std::vector<std::string>& args, size_t first, const std::vector<std::string>& flag_names);

}  // namespace spiderflow::cli
