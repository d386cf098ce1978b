#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/util/errors.h"
#include "services/slurmjob/spiderflow_conf.h"

using spiderflow::InputError;
using namespace spiderflow::slurmjob;

TEST(SpiderflowConf, ParsesKnownKeysCommentsAndBlanks) {
    const auto c = parse_spiderflow_conf(
        "# site\n\ntopology = /etc/slurm/topo.json  # ours\ncluster=us-east\ntime_budget=0.25\n"
        "constrain_gpu_type=yes\nib_tc=106\nwan_ib_sl=3\nsite_env_wins=no\n",
        "spiderflow.conf");
    EXPECT_EQ(c.topology, "/etc/slurm/topo.json");
    EXPECT_EQ(c.cluster, "us-east");
    EXPECT_DOUBLE_EQ(c.time_budget_s, 0.25);
    EXPECT_TRUE(c.constrain_gpu_type);
    EXPECT_EQ(c.ib_tc, 106);
    EXPECT_EQ(c.wan_ib_sl, 3);
    EXPECT_FALSE(c.site_env_wins);
    EXPECT_EQ(c.policy, "spinsearch");  // default kept
}

TEST(SpiderflowConf, UnknownKeyNamesFileLineAndKey) {
    try {
        parse_spiderflow_conf("cluster=a\ntopolgy=/x\n", "spiderflow.conf");
        FAIL() << "unknown key accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.source(), "spiderflow.conf");
        EXPECT_EQ(e.line(), 2);
        EXPECT_EQ(e.field(), "topolgy");
        EXPECT_NE(std::string(e.what()).find("topology"), std::string::npos) << "message should list valid keys";
    }
}

TEST(SpiderflowConf, BadValuesAndSyntaxAreErrors) {
    EXPECT_THROW(parse_spiderflow_conf("time_budget=fast\n", "f"), InputError);
    EXPECT_THROW(parse_spiderflow_conf("time_budget=0\n", "f"), InputError);
    EXPECT_THROW(parse_spiderflow_conf("ib_sl=16\n", "f"), InputError);
    EXPECT_THROW(parse_spiderflow_conf("enabled=maybe\n", "f"), InputError);
    EXPECT_THROW(parse_spiderflow_conf("just words\n", "f"), InputError);
    EXPECT_THROW(parse_spiderflow_conf("cluster=a\ncluster=b\n", "f"), InputError);
    EXPECT_THROW(parse_spiderflow_conf("master_port_base=65000\nmaster_port_span=1000\n", "f"), InputError);
    EXPECT_THROW(parse_spiderflow_conf("cross_site_loss=maybe\n", "f"), InputError);
    EXPECT_FALSE(parse_spiderflow_conf("cross_site_loss=run\n", "f").refuse_cross_site_loss);
    EXPECT_TRUE(parse_spiderflow_conf("cross_site_loss=refuse\n", "f").refuse_cross_site_loss);
    EXPECT_THROW(parse_spiderflow_conf("on_failure=retry\n", "f"), InputError);
    EXPECT_TRUE(parse_spiderflow_conf("on_failure=requeue\n", "f").requeue_on_failure);
    EXPECT_FALSE(parse_spiderflow_conf("", "f").requeue_on_failure);
    EXPECT_THROW(parse_spiderflow_conf("failure_requeues=0\n", "f"), InputError);
}

TEST(SpiderflowConf, PathFromEnvironmentThenArgumentThenBesideSlurmConfThenDefault) {
    unsetenv("SPIDERFLOW_CONF");
    unsetenv("SLURM_CONF");
    EXPECT_EQ(spiderflow_conf_path(""), "/etc/slurm/spiderflow.conf");
    EXPECT_EQ(spiderflow_conf_path("", "/site/slurm/slurm.conf"), "/site/slurm/spiderflow.conf");
    setenv("SLURM_CONF", "/other/slurm.conf", 1);
    EXPECT_EQ(spiderflow_conf_path(""), "/other/spiderflow.conf");
    EXPECT_EQ(spiderflow_conf_path("", "/site/slurm/slurm.conf"), "/site/slurm/spiderflow.conf");
    EXPECT_EQ(spiderflow_conf_path("/opt/sf.conf", "/site/slurm/slurm.conf"), "/opt/sf.conf");
    setenv("SPIDERFLOW_CONF", "/tmp/x.conf", 1);
    EXPECT_EQ(spiderflow_conf_path("/opt/sf.conf"), "/tmp/x.conf");
    unsetenv("SPIDERFLOW_CONF");
    unsetenv("SLURM_CONF");
}

TEST(SpiderflowConf, MissingFileIsAnInputError) {
    EXPECT_THROW(load_spiderflow_conf("/nonexistent/spiderflow.conf"), InputError);
}

// The agent asks every round: the file is parsed again when it changes, and only then.
TEST(SpiderflowConf, ConfErrorWatchFollowsTheFileAndParsesOnlyWhenItChanges) {
    char dir[] = "/tmp/sf_conf_watch_XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const std::string path = std::string(dir) + "/spiderflow.conf";
    ConfErrorWatch watch(path);
    EXPECT_EQ(watch.error(), "");  // missing: the defaults apply
    const std::string twice = "cross_site = yes\ncross_site = no\n";
    std::ofstream(path) << twice;
    EXPECT_NE(watch.error().find("given twice"), std::string::npos) << watch.error();
    // Fixed, but with the same size and modification time: the stamp says unchanged, so the
    // answer is still the last parse's (what proves it is not parsed every round).
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    std::string fixed = "cross_site = yes\n#";
    fixed += std::string(twice.size() - fixed.size() - 1, 'x') + "\n";
    std::ofstream(path) << fixed;
    const struct timespec times[2] = {st.st_atim, st.st_mtim};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
    EXPECT_NE(watch.error().find("given twice"), std::string::npos);
    // Its stamp changes: parsed again.
    const struct timespec later[2] = {st.st_atim, {st.st_mtim.tv_sec + 1, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), later, 0), 0);
    EXPECT_EQ(watch.error(), "");
    ::unlink(path.c_str());
    ::rmdir(dir);
}

TEST(SpiderflowConf, ShippedExampleLoadsAndDocumentsEveryKey) {
    const char* src = std::getenv("SF_SRCDIR");
    if (src == nullptr) GTEST_SKIP() << "SF_SRCDIR not set (run through make check)";
    const std::string path = std::string(src) + "/contrib/slurm/spiderflow.conf";
    const auto c = load_spiderflow_conf(path);
    EXPECT_TRUE(c.enabled);
    std::ifstream f(path);
    std::stringstream text;
    text << f.rdbuf();
    for (const char* const* k = spiderflow_conf_keys(); *k != nullptr; ++k) {
        EXPECT_NE(text.str().find(std::string(*k) + " ="), std::string::npos) << "undocumented key " << *k;
    }
}
