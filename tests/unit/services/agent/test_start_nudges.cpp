// When the agent nudges its scheduler for a part at the common start: just after it, at most
// three times a second apart, and not again for an order said twice.
#include <gtest/gtest.h>

#include "services/agent/start_nudges.h"

using spiderflow::agent::StartNudges;

TEST(StartNudges, JustAfterTheStartThenTwiceASecondApartThenNoMore) {
    StartNudges n;
    n.expect(7, 1000);
    EXPECT_TRUE(n.due(999.9).empty()) << "before the reservation began";
    EXPECT_TRUE(n.due(1000.1).empty()) << "slurmctld's clock may lag a little";
    EXPECT_EQ(n.due(1000.25), std::vector<uint32_t>{7});
    EXPECT_TRUE(n.due(1000.3).empty()) << "once per second";
    EXPECT_EQ(n.due(1001.3), std::vector<uint32_t>{7});
    EXPECT_EQ(n.due(1002.3), std::vector<uint32_t>{7});
    EXPECT_TRUE(n.empty());
    EXPECT_TRUE(n.due(1010).empty());
}

TEST(StartNudges, AnOrderRepeatedUntilTheBrokerHasItsReportStartsNothingAgain) {
    StartNudges n;
    n.expect(7, 1000);
    EXPECT_EQ(n.due(1000.5), std::vector<uint32_t>{7});
    n.expect(7, 1000);
    EXPECT_TRUE(n.due(1000.6).empty());
    n.expect(8, 1000);  // another part, late: given at once
    EXPECT_EQ(n.due(1001.5), (std::vector<uint32_t>{7, 8}));
}
