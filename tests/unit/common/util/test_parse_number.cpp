// Numbers from text, one way everywhere: whole text only, ranges, and the refusal's wording.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>

#include "common/util/errors.h"
#include "common/util/parse_number.h"

using namespace spiderflow;

namespace {

// The problem parse_int reports for `text`, or "" when it parses.
template <class T>
std::string int_problem(const std::string& text, T min, T max) {
    try {
        parse_int<T>(text, min, max, "src", 3, "field");
        return "";
    } catch (const InputError& e) {
        EXPECT_EQ(e.source(), "src");
        EXPECT_EQ(e.line(), 3);
        EXPECT_EQ(e.field(), "field");
        return e.problem();
    }
}

std::string number_problem(const std::string& text, double min, double max) {
    try {
        parse_number(text, min, max, "src", 0, "--f");
        return "";
    } catch (const InputError& e) {
        return e.problem();
    }
}

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST(ToInt, ReadsTheWholeTextOnly) {
    EXPECT_EQ(to_int("42"), 42);
    EXPECT_EQ(to_int("-7"), -7);
    EXPECT_EQ(to_int("0"), 0);
    EXPECT_EQ(to_int("007"), 7);
    for (const char* bad : {"", "-", "+5", " 5", "5 ", "5x", "x5", "4.0", "1e3", "0x10", "--5"}) {
        EXPECT_FALSE(to_int(bad).has_value()) << "'" << bad << "'";
    }
}

TEST(ToInt, KeepsToTheRangeAndTheType) {
    EXPECT_EQ(to_int("5", 1, 5), 5);
    EXPECT_FALSE(to_int("6", 1, 5).has_value());
    EXPECT_FALSE(to_int("0", 1, 5).has_value());
    EXPECT_EQ(to_int("2147483647"), INT_MAX);
    EXPECT_FALSE(to_int("2147483648").has_value());
    EXPECT_FALSE(to_int("-2147483649").has_value());
    EXPECT_EQ(to_int<long long>("9223372036854775807"), LLONG_MAX);
    EXPECT_FALSE(to_int<long long>("9223372036854775808").has_value());
    EXPECT_EQ(to_int<uint32_t>("4294967295"), 4294967295u);
    EXPECT_FALSE(to_int<uint32_t>("-1").has_value());
    EXPECT_EQ(to_int<int64_t>("-5", int64_t{-10}, int64_t{0}), -5);
}

TEST(ParseInt, ReturnsTheValue) {
    EXPECT_EQ(parse_int("12", 1, 100, "s", 0, "f"), 12);
    EXPECT_EQ(parse_int<long>("-3", -5L, 5L, "s", 0, "f"), -3L);
}

TEST(ParseInt, SaysTheRangeThatWasAskedFor) {
    EXPECT_EQ(int_problem("x", 1, INT_MAX), "needs an integer >= 1, not 'x'");
    EXPECT_EQ(int_problem("0", 1, INT_MAX), "needs an integer >= 1, not '0'");
    EXPECT_EQ(int_problem("65", 1, 64), "needs an integer between 1 and 64, not '65'");
    EXPECT_EQ(int_problem("6", INT_MIN, 5), "needs an integer <= 5, not '6'");
    EXPECT_EQ(int_problem("1.5", INT_MIN, INT_MAX), "needs an integer, not '1.5'");
    EXPECT_EQ(int_problem("", 0, INT_MAX), "needs an integer >= 0, not ''");
}

TEST(ParseInt, NamesTheTypesLimitOnlyWhenTheValueIsBeyondIt) {
    EXPECT_EQ(int_problem("3000000000", 1, INT_MAX), "needs an integer between 1 and 2147483647, not '3000000000'");
    EXPECT_EQ(int_problem("-3000000000", INT_MIN, INT_MAX), "needs an integer >= -2147483648, not '-3000000000'");
    EXPECT_EQ(int_problem<long long>("99999999999999999999", 0, LLONG_MAX),
              "needs an integer between 0 and 9223372036854775807, not '99999999999999999999'");
}

TEST(ToNumber, ReadsFiniteDecimals) {
    EXPECT_EQ(to_number("0.5"), 0.5);
    EXPECT_EQ(to_number("-2"), -2);
    EXPECT_EQ(to_number("1e3"), 1000);
    for (const char* bad : {"", "x", "1.5x", " 1", "+1", "inf", "nan", "1e999"}) {
        EXPECT_FALSE(to_number(bad).has_value()) << "'" << bad << "'";
    }
    EXPECT_FALSE(to_number("1.5", 0, 1).has_value());
    EXPECT_EQ(to_number("1", 0, 1), 1);
}

TEST(ToHex, ReadsHexDigitsOnly) {
    EXPECT_EQ(to_hex("a5"), 0xa5u);
    EXPECT_EQ(to_hex("00B80000"), 0xb80000u);
    EXPECT_EQ(to_hex("ffff", 0xffff), 0xffffu);
    for (const char* bad : {"", "0x1", "-1", "+1", " 1", "1g", "ffffffffffffffffff"}) {
        EXPECT_FALSE(to_hex(bad).has_value()) << "'" << bad << "'";
    }
    EXPECT_FALSE(to_hex("10000", 0xffff).has_value());
}

TEST(ParseNumber, SaysTheRangeThatWasAskedFor) {
    EXPECT_EQ(number_problem("2", 0, 1), "needs a number between 0 and 1, not '2'");
    EXPECT_EQ(number_problem("-1", 0, kInf), "needs a number >= 0, not '-1'");
    EXPECT_EQ(number_problem("9", -kInf, 5), "needs a number <= 5, not '9'");
    EXPECT_EQ(number_problem("x", -kInf, kInf), "needs a number, not 'x'");
    EXPECT_EQ(number_problem("0", 0.001, 1e7), "needs a number between 0.001 and 10000000, not '0'");
    EXPECT_EQ(parse_number("0.25", 0, 1, "s", 0, "f"), 0.25);
}
