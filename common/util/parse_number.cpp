#include "common/util/parse_number.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace spiderflow {
namespace {

// "an integer between 1 and 64", "a number >= 0", "an integer".
std::string range_words(const std::string& what, bool say_min, const std::string& min, bool say_max,
                        const std::string& max) {
    if (say_min && say_max) return what + " between " + min + " and " + max;
    if (say_min) return what + " >= " + min;
    if (say_max) return what + " <= " + max;
    return what;
}

std::string decimal(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

// [-]digits: a whole number, whatever its size.
bool whole_number_text(std::string_view text) {
    const size_t first = !text.empty() && text[0] == '-' ? 1 : 0;
    if (text.size() == first) return false;
    for (size_t i = first; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9') return false;
    }
    return true;
}

}  // namespace

namespace number_detail {

std::optional<long long> to_int(std::string_view text, long long min, long long max) {
    long long v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max) return std::nullopt;
    return v;
}

std::string bad_int(std::string_view text, long long min, long long max, long long type_min, long long type_max) {
    bool below_type = false, above_type = false;
    if (whole_number_text(text)) {
        long long v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        const bool negative = text[0] == '-';
        below_type = ec == std::errc::result_out_of_range ? negative : v < type_min;
        above_type = ec == std::errc::result_out_of_range ? !negative : v > type_max;
    }
    return "needs " +
           range_words("an integer", min != type_min || below_type, std::to_string(min), max != type_max || above_type,
                       std::to_string(max)) +
           ", not '" + std::string(text) + "'";
}

}  // namespace number_detail

std::optional<unsigned long long> to_hex(std::string_view text, unsigned long long max) {
    unsigned long long v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v > max) return std::nullopt;
    return v;
}

std::optional<double> to_number(std::string_view text, double min, double max) {
    // from_chars takes neither spaces nor '+', and reads "inf"/"nan", which are refused below.
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
    if (v < min || v > max) return std::nullopt;
    return v;
}

double parse_number(const std::string& text, double min, double max, const std::string& source, int line,
                    const std::string& field) {
    if (const auto v = to_number(text, min, max)) return *v;
    throw InputError(source, line, field,
                     "needs " + range_words("a number", std::isfinite(min), decimal(min), std::isfinite(max), decimal(max)) +
                         ", not '" + text + "'");
}

}  // namespace spiderflow
