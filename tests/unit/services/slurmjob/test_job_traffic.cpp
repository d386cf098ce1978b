// Which tc commands a job's start and end run for which site config and interface state, and
// the NCCL variables that carry the job's class (services/slurmjob/job_traffic.h). A fake runner
// records commands and answers the `show` queries as the kernel would.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "common/util/errors.h"
#include "services/launch/launch_writer.h"
#include "services/slurmjob/job_traffic.h"
#include "tests/unit/common/plan/plan_fixture.h"

using namespace spiderflow;
using namespace spiderflow::slurmjob;
using coflow::Argv;
using coflow::CommandResult;

namespace {

struct FakeTc : coflow::CommandRunner {
    std::string qdisc_show, class_show, filter_show;
    std::vector<std::string> ran;       // non-show commands, joined
    std::string fail_with;              // a command starting with this fails
    CommandResult run(const Argv& argv, bool, bool capture) override {
        const std::string line = coflow::to_string(argv);
        if (capture) {
            if (line.rfind("tc qdisc show", 0) == 0) return {0, qdisc_show};
            if (line.rfind("tc class show", 0) == 0) return {0, class_show};
            if (line.rfind("tc filter show", 0) == 0) return {0, filter_show};
        }
        ran.push_back(line);
        if (!fail_with.empty() && line.rfind(fail_with, 0) == 0) return {2, {}};
        return {0, {}};
    }
    bool ran_prefix(const std::string& p) const {
        return std::any_of(ran.begin(), ran.end(), [&](const std::string& l) { return l.rfind(p, 0) == 0; });
    }
};

SpiderflowConf tc_site(const std::string& extra = "") {
    return parse_spiderflow_conf("traffic_control = yes\nwan_interface = wan0\nwan_rate_mbit = 1000\n" + extra, "test");
}

std::string lock_file() { return ::testing::TempDir() + "/sf-tc-test.lock"; }

std::string value(const EnvList& env, const std::string& k) {
    for (const auto& [n, v] : env)
        if (n == k) return v;
    return "<unset>";
}

const char* kRoot = "qdisc htb 1: root refcnt 2 r2q 10 default 0xffff\n";

}  // namespace

TEST(JobTraffic, SiteKeysAreStrictAndOffByDefault) {
    EXPECT_FALSE(parse_spiderflow_conf("", "t").traffic_control);
    EXPECT_THROW(parse_spiderflow_conf("traffic_control = yes\n", "t"), InputError);   // no interface, no rate
    EXPECT_THROW(parse_spiderflow_conf("tc_match = mark\n", "t"), InputError);
    EXPECT_EQ(wan_match(tc_site("tc_match = fwmark\n")), coflow::TcMatch::fwmark);
}

TEST(JobTraffic, LevelFromTheJobDefaultsToBestEffort) {
    EXPECT_EQ(parse_traffic_level(""), 5);
    EXPECT_EQ(parse_traffic_level("0"), 0);
    EXPECT_THROW(parse_traffic_level("9"), InputError);
    EXPECT_THROW(parse_traffic_level("high"), InputError);
}

TEST(JobTraffic, FirstJobSetsUpTheRootLaterJobsKeepIt) {
    const auto c = coflow::class_for_level(42, 0);
    const auto first = job_start_commands(tc_site(), c, false);
    const auto later = job_start_commands(tc_site(), c, true);
    EXPECT_EQ(coflow::to_string(first.front().argv).rfind("tc qdisc replace dev wan0 root handle 1: htb", 0), 0u);
    EXPECT_EQ(first.size(), later.size() + 3);   // setup = qdisc + parent + default class
    for (const auto& cmd : later) EXPECT_EQ(coflow::to_string(cmd.argv).find("qdisc"), std::string::npos);
    EXPECT_NE(coflow::to_string(later.back().argv).find("dsfield 0xb8 0xfc flowid 1:12a"), std::string::npos);
    const auto fw = job_start_commands(tc_site("tc_match = fwmark\n"), c, true);
    EXPECT_NE(coflow::to_string(fw.back().argv).find("handle 42 fw flowid 1:12a"), std::string::npos);
}

TEST(JobTraffic, LastJobOutTakesTheRootWithIt) {
    const auto others_left = job_end_commands(tc_site(), 42, true);
    EXPECT_FALSE(std::any_of(others_left.begin(), others_left.end(), [](const auto& c) { return c.argv[1] == "qdisc"; }));
    const auto last = job_end_commands(tc_site(), 42, false);
    EXPECT_EQ(coflow::to_string(last.back().argv), "tc qdisc del dev wan0 root");
}

TEST(JobTraffic, StartReadsTheInterfaceAndInstallsTheJobsLevel) {
    FakeTc tc;
    tc.qdisc_show = kRoot;
    const TcOutcome r = start_job_traffic(tc_site(), 42, "1", tc, lock_file());
    EXPECT_TRUE(r.done) << r.message;
    EXPECT_FALSE(tc.ran_prefix("tc qdisc replace"));   // root there: other jobs' classes survive
    EXPECT_TRUE(tc.ran_prefix("tc class replace dev wan0 parent 1:1 classid 1:12a htb rate"));
    EXPECT_TRUE(tc.ran_prefix("tc filter add dev wan0 parent 1: protocol ip prio 298 u32 match ip dsfield 0x88"));
}

TEST(JobTraffic, StartFailsOpenWithAReason) {
    FakeTc tc;
    tc.fail_with = "tc class replace";
    const TcOutcome r = start_job_traffic(tc_site(), 42, "", tc, lock_file());
    EXPECT_FALSE(r.done);
    EXPECT_NE(r.message.find("tc failed"), std::string::npos) << r.message;
    // A malformed level still gets the job a class: best effort, with a note.
    FakeTc ok;
    const TcOutcome b = start_job_traffic(tc_site(), 42, "x", ok, lock_file());
    EXPECT_TRUE(b.done);
    EXPECT_NE(b.message.find("best effort"), std::string::npos);
    // Off: nothing runs.
    FakeTc off;
    EXPECT_FALSE(start_job_traffic(SpiderflowConf{}, 42, "0", off, lock_file()).done);
    EXPECT_TRUE(off.ran.empty());
}

TEST(JobTraffic, EndRemovesTheJobAndChecksItIsGone) {
    FakeTc tc;
    tc.class_show = "class htb 1:12a parent 1:1 prio 0 rate 1Mbit\nclass htb 1:12b parent 1:1 prio 4 rate 1Mbit\n";
    TcOutcome r = end_job_traffic(tc_site(), 42, tc, lock_file());
    // The fake does not forget the class: the check must notice.
    EXPECT_FALSE(r.done);
    EXPECT_NE(r.message.find("still on wan0"), std::string::npos) << r.message;
    EXPECT_TRUE(tc.ran_prefix("tc class del dev wan0 classid 1:12a"));
    EXPECT_FALSE(tc.ran_prefix("tc qdisc del"));   // job 43 still has a class
    FakeTc last;
    last.class_show = "class htb 1:ffff parent 1:1 prio 7 rate 1Mbit\n";
    r = end_job_traffic(tc_site(), 42, last, lock_file());
    EXPECT_TRUE(r.done) << r.message;
    EXPECT_TRUE(last.ran_prefix("tc qdisc del dev wan0 root"));
}

TEST(JobTraffic, SetClassKeepsTheJobsDscpAndNeedsItsClass) {
    FakeTc tc;
    tc.class_show = "class htb 1:12a parent 1:1 prio 5 rate 1Mbit\n";
    tc.filter_show = "  match 00000000/00fc0000 at 0\n";   // started at best effort: DSCP 0
    const auto cmds = change_job_class({"wan0", 1000}, coflow::TcMatch::dscp, 42, 0, std::nullopt, tc);
    const std::string cls = coflow::to_string(cmds.front().argv);
    EXPECT_NE(cls.find("prio 0"), std::string::npos) << cls;
    EXPECT_NE(coflow::to_string(cmds.back().argv).find("dsfield 0x0 0xfc"), std::string::npos);
    EXPECT_THROW(change_job_class({"wan0", 1000}, coflow::TcMatch::dscp, 43, 0, std::nullopt, tc), InputError);
    EXPECT_THROW(change_job_class({"wan0", 1000}, coflow::TcMatch::dscp, 42, 6, std::nullopt, tc), InputError);
}

TEST(JobTraffic, NcclEnvPerJobOrPerGroup) {
    EnvList env = {{"NCCL_IB_TC", "32"}, {"NCCL_IB_SL", "1"}, {"NCCL_BUFFSIZE", "4194304"}};
    EnvList untouched = env;
    EXPECT_TRUE(apply_job_class_env(untouched, SpiderflowConf{}, "").empty());   // no classes in use
    EXPECT_EQ(value(untouched, "NCCL_IB_TC"), "32");

    EnvList job = env;
    EXPECT_TRUE(apply_job_class_env(job, tc_site(), "0").empty());
    EXPECT_EQ(value(job, "NCCL_IB_TC"), "184");   // EF 46 << 2
    EXPECT_EQ(value(job, "NCCL_IB_SL"), "0");
    EXPECT_EQ(value(job, "SPIDERFLOW_NCCL_TC_PP"), "<unset>");

    EnvList groups = env;
    const auto unset = apply_job_class_env(groups, parse_spiderflow_conf("nccl_group_classes = yes\n", "t"), "1");
    EXPECT_EQ(unset, (std::vector<std::string>{"NCCL_IB_TC", "NCCL_IB_SL"}));
    EXPECT_EQ(value(groups, "NCCL_IB_TC"), "<unset>");
    EXPECT_EQ(value(groups, "NCCL_IB_SL"), "<unset>");
    EXPECT_EQ(value(groups, "SPIDERFLOW_NCCL_TC_EP"), "136");   // AF41 34 << 2
    EXPECT_EQ(value(groups, "SPIDERFLOW_NCCL_TC_PP"), "136");
    EXPECT_EQ(value(groups, "SPIDERFLOW_NCCL_TC_DP"), "104");   // one level lower: AF31 26 << 2
    EXPECT_EQ(value(groups, "NCCL_BUFFSIZE"), "4194304");
}

// What `spiderflow launch` does with a plan's script: per-group classes replace the job's
// NCCL_IB_TC/SL, and the script unsets them before the step.
TEST(JobTraffic, LaunchScriptCarriesPerGroupClasses) {
    const Plan p = test::cross_plan();   // pipelines cross two sites
    LaunchRequest req;
    req.command = {"train.py"};
    req.nccl.wan_ib_tc = 32;   // the site's class for crossing jobs
    const CommFacts facts = comm_facts(p, test::two_sites());
    LaunchScript groups = write_launch(p, facts, req);
    ASSERT_EQ(value(groups.env, "NCCL_IB_TC"), "32");
    groups.unset = apply_job_class_env(groups.env, parse_spiderflow_conf("nccl_group_classes = yes\n", "t"), "0");
    const std::string text = groups.text();
    EXPECT_NE(text.find("unset NCCL_IB_TC\nunset NCCL_IB_SL\n"), std::string::npos) << text;
    EXPECT_NE(text.find("export SPIDERFLOW_NCCL_TC_EP=184\n"), std::string::npos) << text;
    EXPECT_NE(text.find("export SPIDERFLOW_NCCL_TC_DP=136\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("export NCCL_IB_TC"), std::string::npos) << text;

    LaunchScript job = write_launch(p, facts, req);
    job.unset = apply_job_class_env(job.env, tc_site(), "2");
    EXPECT_TRUE(job.unset.empty());
    EXPECT_NE(job.text().find("export NCCL_IB_TC=104\n"), std::string::npos) << job.text();   // AF31 26 << 2
    EXPECT_EQ(job.text().find("SPIDERFLOW_NCCL_TC_"), std::string::npos);
}
