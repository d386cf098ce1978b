// Reading back `tc ... show` output (iproute2 6.1 format).
#include <gtest/gtest.h>

#include "common/coflow/tc_state.h"
#include "common/coflow/traffic_class.h"

using namespace spiderflow::coflow;

TEST(TcState, FindsOurHtbRootOnly) {
    EXPECT_TRUE(has_htb_root("qdisc htb 1: root refcnt 2 r2q 10 default 0xffff direct_packets_stat 0\n"));
    EXPECT_FALSE(has_htb_root("qdisc noqueue 0: root refcnt 2\n"));
    EXPECT_FALSE(has_htb_root("qdisc htb 2: root refcnt 2 r2q 10 default 0x1\n"));
    EXPECT_FALSE(has_htb_root(""));
}

TEST(TcState, ListsJobClassesNotParentOrDefault) {
    const std::string show =
        "class htb 1:1 root rate 100Mbit ceil 100Mbit burst 1600b cburst 1600b\n"
        "class htb 1:165 parent 1:1 prio 0 rate 42Mbit ceil 100Mbit burst 1600b cburst 1600b\n"
        "class htb 1:ffff parent 1:1 prio 7 rate 5Mbit ceil 100Mbit burst 1600b cburst 1600b\n"
        "class htb 1:166 parent 1:1 prio 4 rate 5Mbit ceil 100Mbit burst 1600b cburst 1600b\n";
    EXPECT_EQ(job_class_minors(show), (std::vector<int>{0x165, 0x166}));
    EXPECT_TRUE(job_class_minors("").empty());
}

TEST(TcState, ReadsTheDscpOfAU32Filter) {
    const std::string show =
        "filter protocol ip pref 357 u32 chain 0 \n"
        "filter protocol ip pref 357 u32 chain 0 fh 800: ht divisor 1 \n"
        "filter protocol ip pref 357 u32 chain 0 fh 800::800 order 2048 key ht 800 bkt 0 flowid 1:165 not_in_hw \n"
        "  match 00b80000/00fc0000 at 0\n";
    EXPECT_EQ(filter_dscp(show), 46);
    EXPECT_EQ(filter_dscp("  match 00280000/00fc0000 at 0\n"), 10);
    EXPECT_FALSE(filter_dscp("filter parent 1: protocol ip pref 357 fw chain 0 handle 0x65 classid 1:165\n"));
}

TEST(TrafficClass, LevelSharesNeverOversubscribeTheLink) {
    double all = 0;
    for (int l = 0; l < TrafficClass::kLevels; ++l) all += share_for_level(l);
    EXPECT_NEAR(all, 0.95, 1e-9);
    EXPECT_GT(share_for_level(0), share_for_level(1));
    const TrafficClass c = class_for_level(7, 9);   // clamped to best effort
    EXPECT_EQ(c.level, TrafficClass::kLevels - 1);
    EXPECT_EQ(c.dscp, 0);
    EXPECT_EQ(c.job, 7);
}
