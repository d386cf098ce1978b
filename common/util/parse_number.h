// Numbers written as text (command-line options, script words, trace fields, Slurm's environment),
// read one way everywhere: the whole text and nothing else (no spaces, no '+', no hex), base 10,
// within the caller's range; a bad one is refused with one wording, e.g.
//   "needs an integer >= 1, not 'x'", "needs a number between 0 and 1, not '2'".
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/util/errors.h"

namespace spiderflow {

namespace number_detail {
std::optional<long long> to_int(std::string_view text, long long min, long long max);
// "needs an integer >= 1, not 'x'". A bound at the type's own limit (type_min, type_max) goes
// unsaid unless `text` is a whole number beyond it.
std::string bad_int(std::string_view text, long long min, long long max, long long type_min, long long type_max);
}  // namespace number_detail

// The value of `text` as a T in [min, max]; nullopt when it is not a whole number in that range.
template <class T = int>
std::optional<T> to_int(std::string_view text, T min = std::numeric_limits<T>::min(),
                        T max = std::numeric_limits<T>::max()) {
    static_assert(std::is_integral_v<T> && (std::is_signed_v<T> ? sizeof(T) <= sizeof(long long) : sizeof(T) < sizeof(long long)),
                  "to_int reads integers that fit in long long");
    const auto v = number_detail::to_int(text, static_cast<long long>(min), static_cast<long long>(max));
    if (!v) return std::nullopt;
    return static_cast<T>(*v);
}

// The value of `text` as a T in [min, max]; otherwise throws
// InputError(source, line, field, "needs an integer ..., not 'TEXT'").
template <class T = int>
T parse_int(const std::string& text, T min, T max, const std::string& source, int line, const std::string& field) {
    if (const auto v = to_int<T>(text, min, max)) return *v;
    throw InputError(source, line, field,
                     number_detail::bad_int(text, min, max, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

// Hexadecimal digits and nothing else (no "0x", no sign), as tc prints class ids and u32 matches
// ("a5", "00b80000"); nullopt otherwise, or beyond `max`.
std::optional<unsigned long long> to_hex(std::string_view text,
                                         unsigned long long max = std::numeric_limits<unsigned long long>::max());

// A finite decimal number in [min, max]; nullopt otherwise.
std::optional<double> to_number(std::string_view text, double min = -std::numeric_limits<double>::infinity(),
                                double max = std::numeric_limits<double>::infinity());

// The value, or throws InputError(source, line, field, "needs a number ..., not 'TEXT'"); an
// infinite bound goes unsaid.
double parse_number(const std::string& text, double min, double max, const std::string& source, int line,
                    const std::string& field);

}  // namespace spiderflow
