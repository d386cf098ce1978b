// The SPANK plugin's reading of its plugstack.conf arguments and spiderflow.conf (config.cpp):
// strict about what they say, never fatal. The host's calls are faked
// (tests/unit/plugins/fake_slurm_host.cpp, spank_context below): the daemons' log is stderr.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "plugins/spank/spank_state.h"

using namespace spiderflow::plugin::spank;
using ::testing::internal::CaptureStderr;
using ::testing::internal::GetCapturedStderr;

namespace {
spank_context_t g_context = S_CTX_REMOTE;
}  // namespace

// The context Slurm loaded the plugin in: slurmstepd's (remote) unless a test says otherwise.
extern "C" spank_context_t spank_context(void) { return g_context; }

namespace {

// A spiderflow.conf with `text`, removed afterwards; SPIDERFLOW_CONF (which would win over
// conf=) is unset while it lives.
class SiteConf {
public:
    explicit SiteConf(const std::string& text) {
        char name[] = "/tmp/sf_spank_conf_XXXXXX";
        const int fd = ::mkstemp(name);
        ::close(fd);
        path_ = name;
        std::ofstream(path_) << text;
        ::unsetenv("SPIDERFLOW_CONF");
    }
    ~SiteConf() { std::remove(path_.c_str()); }
    SiteConf(const SiteConf&) = delete;
    SiteConf& operator=(const SiteConf&) = delete;
    std::string arg() const { return "conf=" + path_; }

private:
    std::string path_;
};

// load_plugin_config as Slurm calls it, with plugstack.conf's words; returns what was logged.
std::string load(std::vector<std::string> words, spank_context_t context = S_CTX_REMOTE) {
    g_context = context;
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    CaptureStderr();
    load_plugin_config(static_cast<int>(argv.size()), argv.data());
    return GetCapturedStderr();
}

}  // namespace

TEST(SpankConfig, NoSiteFileMeansTheDefaults) {
    ::unsetenv("SPIDERFLOW_CONF");
    const std::string log = load({"conf=/nonexistent/spiderflow.conf"});
    EXPECT_EQ(log, "");
    EXPECT_TRUE(plugin_state().config.enabled);
    EXPECT_EQ(plugin_state().config_error, "");
}

TEST(SpankConfig, TheSiteFileIsReadAndAnEarlierErrorForgotten) {
    const SiteConf bad("no_such_key = 1\n");
    load({bad.arg()});
    ASSERT_NE(plugin_state().config_error, "");

    const SiteConf good("coflow_levels = no\npolicy = genetic\n");
    EXPECT_EQ(load({good.arg(), "stepd=/opt/sf/spiderflow_stepd.so"}), "");
    EXPECT_TRUE(plugin_state().config.enabled);
    EXPECT_FALSE(plugin_state().config.coflow_levels);
    EXPECT_EQ(plugin_state().config.policy, "genetic");
    EXPECT_EQ(plugin_state().config_error, "");
    EXPECT_EQ(plugin_state().plugin_arg_remote, "/opt/sf/spiderflow_stepd.so");
}

// An unknown word is an error, never silently ignored: SpiderFlow turns off on this host and
// the daemon's log says why.
TEST(SpankConfig, AnUnknownArgumentTurnsSpiderFlowOffAndSaysWhy) {
    const SiteConf good("policy = genetic\n");
    const std::string log = load({good.arg(), "conf_file=/etc/x"});
    EXPECT_FALSE(plugin_state().config.enabled);
    EXPECT_EQ(plugin_state().config.policy, SpiderflowConf{}.policy) << "off means the defaults, not half the file";
    EXPECT_EQ(plugin_state().config_error, "unknown plugstack.conf argument 'conf_file=/etc/x' (known: conf=PATH, stepd=PATH)");
    EXPECT_NE(log.find("spiderflow: SpiderFlow is OFF on this host: unknown plugstack.conf argument"), std::string::npos)
        << log;
}

TEST(SpankConfig, ABadSiteFileTurnsSpiderFlowOffNamingTheKey) {
    const SiteConf bad("coflow_levels = perhaps\n");
    const std::string log = load({bad.arg()});
    EXPECT_FALSE(plugin_state().config.enabled);
    EXPECT_NE(plugin_state().config_error.find("coflow_levels"), std::string::npos) << plugin_state().config_error;
    EXPECT_NE(log.find("SpiderFlow is OFF"), std::string::npos) << log;
}

// sbatch, salloc and srun of every user load the plugin: a bad config is not every user's news
// (only those who ask for SpiderFlow hear of it, later); the error is still kept.
TEST(SpankConfig, UsersCommandsDoNotLogTheSitesError) {
    const SiteConf bad("no_such_key = 1\n");
    for (spank_context_t context : {S_CTX_LOCAL, S_CTX_ALLOCATOR}) {
        EXPECT_EQ(load({bad.arg()}, context), "");
        EXPECT_FALSE(plugin_state().config.enabled);
        EXPECT_NE(plugin_state().config_error.find("no_such_key"), std::string::npos) << plugin_state().config_error;
    }
    EXPECT_NE(load({bad.arg()}, S_CTX_JOB_SCRIPT).find("SpiderFlow is OFF"), std::string::npos);
}
