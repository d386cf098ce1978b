#include "common/util/key_value_conf.h"

#include <sstream>
#include <string_view>

#include "common/util/did_you_mean.h"
#include "common/util/errors.h"
#include "common/util/parse_number.h"
#include "common/util/text_file.h"

namespace spiderflow {
namespace {

std::string trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {};
    const auto e = s.find_last_not_of(" \t\r");
    return std::string(s.substr(b, e - b + 1));
}

std::string key_list(const std::vector<std::string>& keys) {
    std::string out;
    for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
    return out;
}

}  // namespace

std::vector<std::pair<int, std::string>> uncommented_lines(const std::string& text) {
    std::vector<std::pair<int, std::string>> out;
    std::istringstream in(text);
    std::string raw;
    int line = 0;
    while (std::getline(in, raw)) {
        ++line;
        const std::string body = raw.substr(0, raw.find('#'));
        if (body.find_first_not_of(" \t\r") != std::string::npos) out.emplace_back(line, body);
    }
    return out;
}

std::vector<ConfLine> read_conf_lines(const std::string& text, const std::string& source,
                                      const std::vector<std::string>& keys) {
    std::vector<ConfLine> out;
    for (const auto& [line, text_of_line] : uncommented_lines(text)) {
        const std::string body = trim(text_of_line);
        const auto eq = body.find('=');
        if (eq == std::string::npos) throw InputError(source, line, "", "expected key=value, got '" + body + "'");
        ConfLine l{line, trim(body.substr(0, eq)), trim(body.substr(eq + 1))};
        bool known = false;
        for (const auto& k : keys) known = known || k == l.key;
        if (!known) {
            const std::string guess = did_you_mean(l.key, keys);
            throw InputError(source, line, l.key,
                             guess.empty() ? "unknown key; valid keys: " + key_list(keys) : "unknown key; did you mean '" + guess + "'?");
        }
        for (const auto& seen : out) {
            if (seen.key == l.key) throw InputError(source, line, l.key, "key given twice");
        }
        out.push_back(std::move(l));
    }
    return out;
}

std::string read_conf_file(const std::string& path) { return read_text_file(path, "config file"); }

long conf_integer(const ConfLine& l, long lo, long hi, const std::string& source) {
    if (const auto n = to_int(l.value, lo, hi)) return *n;
    throw InputError(source, l.line, l.key,
                     "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + l.value + "'");
}

double conf_seconds(const ConfLine& l, double lo, double hi, const std::string& source) {
    if (const auto d = to_number(l.value, lo, hi)) return *d;
    throw InputError(source, l.line, l.key, "expected seconds in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                                "], got '" + l.value + "'");
}

double conf_fraction(const ConfLine& l, const std::string& source) {
    if (const auto d = to_number(l.value, 0, 1); d && *d > 0) return *d;
    throw InputError(source, l.line, l.key, "expected a fraction in (0, 1], got '" + l.value + "'");
}

bool conf_bool(const ConfLine& l, const std::string& source) {
    const std::string& v = l.value;
    if (v == "yes" || v == "true" || v == "1" || v == "on") return true;
    if (v == "no" || v == "false" || v == "0" || v == "off") return false;
    throw InputError(source, l.line, l.key, "expected yes or no, got '" + v + "'");
}

}  // namespace spiderflow
