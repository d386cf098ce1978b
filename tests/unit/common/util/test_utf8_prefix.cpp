#include "common/util/utf8_prefix.h"

#include <gtest/gtest.h>

namespace spiderflow {
namespace {

TEST(Utf8Prefix, ShortTextIsKept) {
    EXPECT_EQ(utf8_prefix("abc", 3), "abc");
    EXPECT_EQ(utf8_prefix("", 0), "");
}

TEST(Utf8Prefix, CutsAtTheBudgetBetweenCharacters) {
    EXPECT_EQ(utf8_prefix("abcdef", 4), "abcd");
    EXPECT_EQ(utf8_prefix("ab\xC3\xA9", 4), "ab\xC3\xA9");
}

TEST(Utf8Prefix, NeverSplitsACharacter) {
    // "é" is 2 bytes, "€" 3, "😀" 4: a cut inside each backs off to before it.
    EXPECT_EQ(utf8_prefix("a\xC3\xA9", 2), "a");
    EXPECT_EQ(utf8_prefix("a\xE2\x82\xAC", 2), "a");
    EXPECT_EQ(utf8_prefix("a\xE2\x82\xAC", 3), "a");
    EXPECT_EQ(utf8_prefix("a\xF0\x9F\x98\x80z", 4), "a");
    EXPECT_EQ(utf8_prefix("a\xF0\x9F\x98\x80z", 5), "a\xF0\x9F\x98\x80");
    // The broker's cancel reason: 1,023 ASCII bytes, then "é" across the 1,024-byte bound.
    const std::string reason = std::string(1023, 'x') + "\xC3\xA9";
    EXPECT_EQ(utf8_prefix(reason, 1024), std::string(1023, 'x'));
}

}  // namespace
}  // namespace spiderflow
