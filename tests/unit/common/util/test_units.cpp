// The edge conversions: files and CLIs speak Gbps, ms and TFLOPS, the models bytes/s, s and FLOP/s.
#include <gtest/gtest.h>

#include "common/util/units.h"

using namespace spiderflow;

TEST(Units, BandwidthBothWays) {
    EXPECT_DOUBLE_EQ(units::gbps_to_Bps(8), 1e9);
    EXPECT_DOUBLE_EQ(units::gbps_to_Bps(0.42), 0.0525e9);
    EXPECT_DOUBLE_EQ(units::Bps_to_gbps(units::gbps_to_Bps(1.16)), 1.16);
    EXPECT_DOUBLE_EQ(units::GBps_to_Bps(900), 9e11);
}

TEST(Units, TimeAndCompute) {
    EXPECT_DOUBLE_EQ(units::ms_to_s(136), 0.136);
    EXPECT_DOUBLE_EQ(units::us_to_s(5), 5e-6);
    EXPECT_DOUBLE_EQ(units::s_to_ms(units::ms_to_s(49)), 49);
    EXPECT_DOUBLE_EQ(units::tflops_to_flops(989), 9.89e14);
}

TEST(Units, SizesAreDecimalExceptGiB) {
    EXPECT_EQ(units::kGB, 1e9);
    EXPECT_EQ(units::kMB, 1e6);
    EXPECT_EQ(units::kGiB, 1073741824.0);
}

// Usable in constant expressions, so tables of constants can be written in the file's units.
static_assert(units::gbps_to_Bps(8) == 1e9);
static_assert(units::ms_to_s(1000) == 1);
