// The one option parser of every SpiderFlow command line (the `spiderflow` subcommands, the
// daemons, the benchmarks): a table of options (name, whether it takes a value, help text,
// handler) that parses a command line, refuses what it does not know with one wording, and
// prints --help from the same entries.
//
//   OptionTable t("spiderflow topo show", kUsage, "", 18);
//   t.value("--reader", "NAME", "spiderflow, slurm or hwloc (default: from the file name)", store(&reader));
//   t.flag("--no-timing", "leave the planning time out", set(&timing, false));
//   const auto p = t.parse_or_help(args, 1, std::cout);   // nullopt: --help was printed
//   if (!p) return kExitOk;
//
// Every refusal is an OptionError, printed by main() as "spiderflow: error: COMMAND: OPTION: ...":
//   unknown option:   --bogus: unknown option (see 'spiderflow plan --help')
//   missing value:    --tp: needs a value
//   bad number:       --tp: needs an integer >= 1, not 'x'
//   a word too many:  x: unexpected argument (see 'spiderflow plan --help')
//   a flag's value:   --check: takes no value
// --help and -h anywhere (before a "--") win over everything else on the line.
#pragma once

#include <functional>
#include <iosfwd>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/util/errors.h"
#include "common/util/parse_number.h"

namespace spiderflow::cli {

// A bad command line. An InputError, so the command exits 2 with the message.
class OptionError : public InputError {
public:
    using InputError::InputError;
};

// What a handler throws to refuse its value ("must be json or text, not 'x'"); the parser adds
// the command and the option.
class BadValue : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Called with the option's value ("" for a flag, or for --opt[=VALUE] given bare).
using Handler = std::function<void(const std::string& value)>;

// Handlers for the usual cases; each refuses a bad value with the shared wording.
Handler store(std::string* dest);
Handler set(bool* dest, bool to = true);
Handler one_of(std::string* dest, std::vector<std::string> choices);  // "must be json, text or svg, not 'x'"
Handler number(double* dest, double min, double max = std::numeric_limits<double>::infinity());
template <class T>
Handler integer(T* dest, T min, T max = std::numeric_limits<T>::max());
template <class T>
Handler integer(std::optional<T>* dest, T min, T max = std::numeric_limits<T>::max());

// "needs an integer >= 1, not 'x'" as a BadValue; for handlers that convert on their own.
template <class T>
T int_value(const std::string& value, T min, T max = std::numeric_limits<T>::max());
double number_value(const std::string& value, double min, double max = std::numeric_limits<double>::infinity());

// A parsed command line. Options without a handler land in values/flags, for commands that look
// them up by name with their own defaults (coflow, simulate).
struct Parsed {
    std::string command;                       // names the errors of the lookups below
    bool help = false;                         // --help or -h was given: nothing else was parsed
    std::vector<std::string> words;            // positional words, in order
    std::vector<std::string> rest;             // the words after "--" (OptionTable::rest)
    std::map<std::string, std::string> values;
    std::vector<std::string> flags;

    bool flag(const std::string& f) const;
    bool has(const std::string& k) const { return values.count(k) > 0; }
    std::string get(const std::string& k, const std::string& def = "") const;
    // The value given for k, or def when none was; OptionError in the shared wording otherwise.
    double number(const std::string& k, double def, double min = -std::numeric_limits<double>::infinity(),
                  double max = std::numeric_limits<double>::infinity()) const;
    template <class T>
    T integer(const std::string& k, T def, T min, T max = std::numeric_limits<T>::max()) const;

    [[noreturn]] void refuse(const std::string& option, const std::string& problem) const;
};

class OptionTable {
public:
    // command: "spiderflow plan", which names the errors. usage: the help text above the option
    // lines (ending with its blank line); footer: below them. column: where the option lines'
    // descriptions start (two spaces after a longer label).
    OptionTable(std::string command, std::string usage, std::string footer = "", size_t column = 0);

    // --name; listed in --help as `name` unless help is empty.
    OptionTable& flag(const std::string& name, const std::string& help, Handler handler = nullptr);
    // --name VALUE or --name=VALUE; listed as "name VALUE_NAME".
    OptionTable& value(const std::string& name, const std::string& value_name, const std::string& help,
                       Handler handler = nullptr);
    // --name or --name=VALUE (the handler gets "" for the bare flag); listed as "name[=VALUE_NAME]".
    OptionTable& optional_value(const std::string& name, const std::string& value_name, const std::string& help,
                                Handler handler = nullptr);
    // A help line that is no option of its own: a subcommand, one option shown with several values
    // or several options shown on one line.
    OptionTable& line(const std::string& label, const std::string& help);
    // Help text between option lines, printed as it is; the lines after it start their
    // descriptions at `column`.
    OptionTable& section(const std::string& text, size_t column);
    // Up to `max` positional words (default none).
    OptionTable& words(size_t max);
    // "--" ends the options; what follows is Parsed::rest.
    OptionTable& rest();
    // Added to the pointer at --help when an option or a word is refused: "(see '... --help'; HINT)".
    OptionTable& unknown_hint(std::string hint);

    // args[first..]. Handlers run in the order their options appear. Throws OptionError.
    Parsed parse(const std::vector<std::string>& args, size_t first) const;
    // The same, except that --help prints help() to `out` and gives nullopt: the command is done.
    std::optional<Parsed> parse_or_help(const std::vector<std::string>& args, size_t first,
                                        std::ostream& out) const;
    std::string help() const;
    const std::string& command() const { return command_; }

private:
    enum class Takes { nothing, value, optional_value, help_only, section };
    struct Entry {
        std::string name;
        Takes takes;
        std::string label;
        std::string help;
        Handler handler;
        size_t column = 0;  // a section's
    };
    OptionTable& add(Entry e);
    const Entry* find(const std::string& name) const;
    [[noreturn]] void refuse(const std::string& option, const std::string& problem) const;

    std::string command_, usage_, footer_, hint_;
    size_t column_;
    size_t max_words_ = 0;
    bool rest_ = false;
    std::vector<Entry> entries_;
};

// For a program's main(): parses argv[1..] with `table`. Prints --help to stdout, or a refusal
// to stderr as "spiderflow: error: PROGRAM: OPTION: ...", and then gives the exit status (0 or
// 2); nullopt: the options are read, go on.
std::optional<int> parse_main(const OptionTable& table, int argc, char** argv);

template <class T>
T int_value(const std::string& value, T min, T max) {
    try {
        return parse_int<T>(value, min, max, "", 0, "");
    } catch (const InputError& e) {
        throw BadValue(e.problem());
    }
}

template <class T>
Handler integer(T* dest, T min, T max) {
    return [dest, min, max](const std::string& v) { *dest = int_value<T>(v, min, max); };
}

template <class T>
Handler integer(std::optional<T>* dest, T min, T max) {
    return [dest, min, max](const std::string& v) { *dest = int_value<T>(v, min, max); };
}

template <class T>
T Parsed::integer(const std::string& k, T def, T min, T max) const {
    const auto it = values.find(k);
    if (it == values.end()) return def;
    try {
        return int_value<T>(it->second, min, max);
    } catch (const BadValue& e) {
        refuse(k, e.what());
    }
}

}  // namespace spiderflow::cli
