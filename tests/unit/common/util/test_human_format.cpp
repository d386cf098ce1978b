// Numbers as every text writer prints them: decimal byte units, switching at each power of 1000.
#include <gtest/gtest.h>

#include "common/util/human_format.h"

using namespace spiderflow;

TEST(FormatNumber, PrintfStyle) {
    EXPECT_EQ(format_number("%.1f%%", 96.04), "96.0%");
    EXPECT_EQ(format_number("%.3g s", 0.0001234), "0.000123 s");
}

TEST(FormatNumber, ALongResultIsCutNotOverrun) {
    const std::string s = format_number("%.80f", 1.0);
    EXPECT_EQ(s.size(), 63u);
    EXPECT_EQ(s.substr(0, 4), "1.00");
}

TEST(FormatBytes, DecimalUnitsAtEachBoundary) {
    EXPECT_EQ(format_bytes(0), "0 B");
    EXPECT_EQ(format_bytes(400), "400 B");
    EXPECT_EQ(format_bytes(999999), "999999 B");
    EXPECT_EQ(format_bytes(1e6), "1.0 MB");
    EXPECT_EQ(format_bytes(4e6), "4.0 MB");
    EXPECT_EQ(format_bytes(1e9), "1.00 GB");
    EXPECT_EQ(format_bytes(4e9), "4.00 GB");
    EXPECT_EQ(format_bytes(1e12), "1.00 TB");
    EXPECT_EQ(format_bytes(4.5e15), "4500.00 TB");
}

TEST(FormatBytes, NotBinaryUnits) {
    EXPECT_EQ(format_bytes(1024.0 * 1024 * 1024), "1.07 GB");
}
