// Traffic classes from a priority order, NCCL variables, and the tc commands we would run.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/coflow/traffic_class.h"
#include "common/util/errors.h"

using namespace spiderflow::coflow;

TEST(TrafficClass, LevelsSharesAndNcclValues) {
    const auto cls = classes_for_order({12, 7, 9});
    ASSERT_EQ(cls.size(), 3u);
    EXPECT_EQ(cls[0].job, 12);
    EXPECT_EQ(cls[0].level, 0);
    EXPECT_EQ(cls[0].dscp, 46);
    EXPECT_EQ(cls[2].dscp, 26);
    EXPECT_GT(cls[0].share, cls[1].share);
    EXPECT_GT(cls[1].share, cls[2].share);
    double sum = 0;
    for (const auto& c : cls) sum += c.share;
    EXPECT_LE(sum, 1.0);
    const auto env = nccl_job_env(cls[0]);
    EXPECT_EQ(env.at("NCCL_IB_TC"), "184");   // DSCP 46 << 2
    EXPECT_EQ(env.at("NCCL_IB_SL"), "0");
    const GroupTrafficClasses groups = group_traffic_classes(cls[0]);
    EXPECT_EQ(groups.ep, 184);
    EXPECT_EQ(groups.pp, 184);
    EXPECT_EQ(groups.dp, 136);   // one level lower: AF41
    // More jobs than levels: the rest share the lowest level.
    const auto many = classes_for_order({1, 2, 3, 4, 5, 6, 7, 8});
    EXPECT_EQ(many.back().level, TrafficClass::kLevels - 1);
    EXPECT_EQ(many.back().dscp, 0);
}

TEST(TrafficClass, TcInstallBuildsClassAndDscpFilter) {
    TcLink link{"wan0", 100};
    TrafficClass c;
    c.job = 7;
    c.level = 1;
    c.dscp = 34;
    c.share = 0.25;
    const auto cmds = tc_install(link, c, TcMatch::dscp);
    ASSERT_EQ(cmds.size(), 3u);
    const std::string cls = to_string(cmds[0].argv);
    EXPECT_NE(cls.find("classid 1:107"), std::string::npos) << cls;
    EXPECT_NE(cls.find("rate 25000kbit"), std::string::npos) << cls;
    EXPECT_NE(cls.find("ceil 100000kbit"), std::string::npos) << cls;
    EXPECT_NE(cls.find("prio 1"), std::string::npos) << cls;
    EXPECT_TRUE(cmds[1].may_fail);   // removing an old filter that may not exist
    const std::string filt = to_string(cmds[2].argv);
    EXPECT_NE(filt.find("dsfield 0x88 0xfc flowid 1:107"), std::string::npos) << filt;
    const auto fw = tc_install(link, c, TcMatch::fwmark);
    EXPECT_NE(to_string(fw[2].argv).find("handle 7 fw flowid 1:107"), std::string::npos);
    const auto rm = tc_remove(link, 7);
    EXPECT_EQ(to_string(rm.back().argv), "tc class del dev wan0 classid 1:107");
    EXPECT_EQ(to_string(tc_clear(link)[0].argv), "tc qdisc del dev wan0 root");
}

TEST(TrafficClass, BadInputIsRefusedBeforeAnyCommand) {
    TrafficClass c;
    c.job = 1;
    c.share = 0.5;
    EXPECT_THROW(tc_install({"eth0; reboot", 100}, c, TcMatch::dscp), spiderflow::InputError);
    EXPECT_THROW(tc_install({"eth0", 0}, c, TcMatch::dscp), spiderflow::InputError);
    c.share = 1.5;
    EXPECT_THROW(tc_install({"eth0", 100}, c, TcMatch::dscp), spiderflow::InputError);
    c.share = 0.5;
    c.dscp = 64;
    EXPECT_THROW(tc_install({"eth0", 100}, c, TcMatch::dscp), spiderflow::InputError);
    EXPECT_THROW(tc_remove({"eth0", 100}, 0), spiderflow::InputError);
}
