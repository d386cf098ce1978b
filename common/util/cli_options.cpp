#include "common/util/cli_options.h"

#include <algorithm>
#include <iostream>
#include <ostream>
#include <sstream>

namespace spiderflow::cli {

Handler store(std::string* dest) {
    return [dest](const std::string& v) { *dest = v; };
}

Handler set(bool* dest, bool to) {
    return [dest, to](const std::string&) { *dest = to; };
}

Handler one_of(std::string* dest, std::vector<std::string> choices) {
    return [dest, choices = std::move(choices)](const std::string& v) {
        if (std::find(choices.begin(), choices.end(), v) == choices.end()) {
            std::string list;
            for (size_t i = 0; i < choices.size(); ++i) {
                list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
            }
            throw BadValue("must be " + list + ", not '" + v + "'");
        }
        *dest = v;
    };
}

double number_value(const std::string& value, double min, double max) {
    try {
        return parse_number(value, min, max, "", 0, "");
    } catch (const InputError& e) {
        throw BadValue(e.problem());
    }
}

Handler number(double* dest, double min, double max) {
    return [dest, min, max](const std::string& v) { *dest = number_value(v, min, max); };
}

bool Parsed::flag(const std::string& f) const { return std::find(flags.begin(), flags.end(), f) != flags.end(); }

std::string Parsed::get(const std::string& k, const std::string& def) const {
    const auto it = values.find(k);
    return it == values.end() ? def : it->second;
}

double Parsed::number(const std::string& k, double def, double min, double max) const {
    const auto it = values.find(k);
    if (it == values.end()) return def;
    try {
        return number_value(it->second, min, max);
    } catch (const BadValue& e) {
        refuse(k, e.what());
    }
}

void Parsed::refuse(const std::string& option, const std::string& problem) const {
    throw OptionError(command, 0, option, problem);
}

OptionTable::OptionTable(std::string command, std::string usage, std::string footer, size_t column)
    : command_(std::move(command)), usage_(std::move(usage)), footer_(std::move(footer)), column_(column) {}

OptionTable& OptionTable::add(Entry e) {
    entries_.push_back(std::move(e));
    return *this;
}

OptionTable& OptionTable::flag(const std::string& name, const std::string& help, Handler handler) {
    return add({name, Takes::nothing, name, help, std::move(handler)});
}

OptionTable& OptionTable::value(const std::string& name, const std::string& value_name, const std::string& help,
                                Handler handler) {
    return add({name, Takes::value, value_name.empty() ? name : name + " " + value_name, help, std::move(handler)});
}

OptionTable& OptionTable::optional_value(const std::string& name, const std::string& value_name,
                                         const std::string& help, Handler handler) {
    return add({name, Takes::optional_value, name + "[=" + value_name + "]", help, std::move(handler)});
}

OptionTable& OptionTable::line(const std::string& label, const std::string& help) {
    return add({"", Takes::help_only, label, help, nullptr});
}

OptionTable& OptionTable::section(const std::string& text, size_t column) {
    return add({"", Takes::section, "", text, nullptr, column});
}

OptionTable& OptionTable::words(size_t max) {
    max_words_ = max;
    return *this;
}

OptionTable& OptionTable::rest() {
    rest_ = true;
    return *this;
}

OptionTable& OptionTable::unknown_hint(std::string hint) {
    hint_ = std::move(hint);
    return *this;
}

const OptionTable::Entry* OptionTable::find(const std::string& name) const {
    for (const Entry& e : entries_) {
        if (!e.name.empty() && e.name == name) return &e;
    }
    return nullptr;
}

void OptionTable::refuse(const std::string& option, const std::string& problem) const {
    throw OptionError(command_, 0, option, problem);
}

Parsed OptionTable::parse(const std::vector<std::string>& args, size_t first) const {
    Parsed p;
    p.command = command_;
    // --help wins over anything else on the line, before any handler runs or anything is refused.
    for (size_t i = first; i < args.size() && !(rest_ && args[i] == "--"); ++i) {
        if (args[i] == "--help" || args[i] == "-h") {
            p.help = true;
            return p;
        }
    }
    const std::string see = "(see '" + command_ + " --help'" + (hint_.empty() ? "" : "; " + hint_) + ")";
    for (size_t i = first; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (rest_ && a == "--") {
            p.rest.assign(args.begin() + static_cast<long>(i) + 1, args.end());
            break;
        }
        if (a.size() < 2 || a[0] != '-') {
            if (p.words.size() >= max_words_) refuse(a, "unexpected argument " + see);
            p.words.push_back(a);
            continue;
        }
        // --name=value
        const size_t eq = a.rfind("--", 0) == 0 ? a.find('=') : std::string::npos;
        const std::string name = eq == std::string::npos ? a : a.substr(0, eq);
        const Entry* e = find(name);
        if (e == nullptr) refuse(name, "unknown option " + see);
        std::string value;
        if (e->takes == Takes::value) {
            if (eq != std::string::npos) value = a.substr(eq + 1);
            else if (i + 1 < args.size()) value = args[++i];
            else refuse(name, "needs a value");
        } else if (eq != std::string::npos) {
            if (e->takes == Takes::nothing) refuse(name, "takes no value");
            value = a.substr(eq + 1);
        }
        if (!e->handler) {
            if (e->takes == Takes::nothing || (e->takes == Takes::optional_value && eq == std::string::npos)) {
                p.flags.push_back(name);
            } else {
                p.values[name] = value;
            }
            continue;
        }
        try {
            e->handler(value);
        } catch (const BadValue& bad) {
            refuse(name, bad.what());
        }
    }
    return p;
}

std::optional<Parsed> OptionTable::parse_or_help(const std::vector<std::string>& args, size_t first,
                                                 std::ostream& out) const {
    Parsed p = parse(args, first);
    if (!p.help) return p;
    out << help();
    return std::nullopt;
}

std::optional<int> parse_main(const OptionTable& table, int argc, char** argv) {
    try {
        if (!table.parse_or_help(std::vector<std::string>(argv, argv + argc), 1, std::cout)) return 0;
        return std::nullopt;
    } catch (const OptionError& e) {
        std::cerr << "spiderflow: error: " << e.what() << "\n";
        return 2;
    }
}

std::string OptionTable::help() const {
    std::string out = usage_;
    size_t column = column_;
    for (const Entry& e : entries_) {
        if (e.takes == Takes::section) {
            out += e.help;
            column = e.column;
            continue;
        }
        if (e.help.empty()) continue;
        std::string row = "  " + e.label;
        row += std::string(row.size() < column ? column - row.size() : 2, ' ');
        std::istringstream lines(e.help);
        bool first = true;
        for (std::string l; std::getline(lines, l); first = false) {
            out += (first ? row : std::string(column, ' ')) + l + "\n";
        }
    }
    return out + footer_;
}

}  // namespace spiderflow::cli
