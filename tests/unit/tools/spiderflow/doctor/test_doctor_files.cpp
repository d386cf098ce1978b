// spiderflow doctor's readers: a plugin's identity from its ELF file (the built plugins, and files
// that are not plugins), plugstack.conf with its includes, Slurm versions, libslurm's report.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

extern "C" {
#include <slurm/slurm_version.h>
}

#include "tools/spiderflow/doctor/libslurm_view.h"
#include "tools/spiderflow/doctor/plugin_file.h"
#include "tools/spiderflow/doctor/plugstack.h"
#include "tools/spiderflow/doctor/site_facts.h"

using namespace spiderflow::doctor;

namespace {

std::string temp_dir() {
    char dir[] = "/tmp/sf-doctor-test.XXXXXX";
    EXPECT_NE(::mkdtemp(dir), nullptr);
    return dir;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string built(const char* rel) {
    const char* b = std::getenv("SF_BUILDDIR");
    return b == nullptr ? std::string() : std::string(b) + "/" + rel;
}

}  // namespace

TEST(PluginFile, ReadsTheBuiltPluginsAsSlurmsLoaderWould) {
    const std::string so = built("plugins/job_submit/.libs/job_submit_spiderflow.so");
    if (so.empty() || ::access(so.c_str(), R_OK) != 0) GTEST_SKIP() << "job_submit plugin not built (SF_BUILDDIR)";
    const PluginFile p = read_plugin_file(so);
    EXPECT_EQ(p.error, "");
    EXPECT_EQ(p.type, "job_submit/spiderflow");
    EXPECT_EQ(p.name, "SpiderFlow topology-aware LLM job planner");
    ASSERT_TRUE(p.version.has_value());
    EXPECT_EQ(*p.version, static_cast<uint32_t>(SLURM_VERSION_NUMBER));
    const PluginFile spank = read_plugin_file(built("plugins/spank/.libs/spiderflow.so"));
    EXPECT_EQ(spank.type, "spank");
    const PluginFile stepd = read_plugin_file(built("plugins/spank/.libs/spiderflow_stepd.so"));
    EXPECT_EQ(stepd.exports.count("spiderflow_stepd_abi"), 1u);
    EXPECT_FALSE(stepd.version.has_value());
}

TEST(PluginFile, RefusesWhatIsNoPluginWithoutCrashing) {
    const std::string dir = temp_dir();
    write(dir + "/text.so", "not a plugin\n");
    EXPECT_NE(read_plugin_file(dir + "/text.so").error.find("not an ELF file"), std::string::npos);
    EXPECT_EQ(read_plugin_file(dir + "/missing.so").error, "No such file or directory");
    EXPECT_EQ(read_plugin_file(dir).error, "not a regular file");
    // A plugin cut short (a copy that failed half way): an error, whatever the cut.
    const std::string so = built("plugins/job_submit/.libs/job_submit_spiderflow.so");
    if (::access(so.c_str(), R_OK) == 0) {
        std::ifstream in(so, std::ios::binary);
        std::string bytes(65536, '\0');  // its headers and more; the section headers are at its end
        in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        for (size_t cut : {size_t{10}, size_t{64}, size_t{4096}, size_t{65536}}) {
            std::ofstream(dir + "/cut.so", std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(cut));
            const PluginFile p = read_plugin_file(dir + "/cut.so");
            EXPECT_TRUE(!p.error.empty() || !p.version.has_value()) << "cut at " << cut;
        }
    }
    std::system(("rm -rf " + dir).c_str());
}

TEST(PluginFile, VersionsAsSlurmsLoaderComparesThem) {
    const uint32_t slurm = (22u << 16) | (5u << 8) | 8u;
    EXPECT_TRUE(version_accepted("job_submit/spiderflow", slurm, slurm));
    EXPECT_FALSE(version_accepted("job_submit/spiderflow", (22u << 16) | (5u << 8) | 7u, slurm));
    EXPECT_TRUE(version_accepted("spank", (22u << 16) | (5u << 8) | 7u, slurm));  // SPANK: major and minor
    EXPECT_FALSE(version_accepted("spank", (24u << 16) | (11u << 8) | 8u, slurm));
}

TEST(SlurmVersion, ReadsAndWritesSlurmsNumbers) {
    EXPECT_EQ(version_number("22.05.8"), (22u << 16) | (5u << 8) | 8u);
    EXPECT_EQ(version_number("23.02.0-0rc1"), (23u << 16) | (2u << 8));
    EXPECT_EQ(version_number("twenty"), 0u);
    EXPECT_EQ(version_text((24u << 16) | (11u << 8) | 5u), "24.11.5");
}

TEST(Plugstack, FollowsIncludesBesideTheFileAndNamesBadLines) {
    const std::string dir = temp_dir();
    ::mkdir((dir + "/plugstack.conf.d").c_str(), 0755);
    write(dir + "/plugstack.conf", "# site\noptional /x/pyxis.so\ninclude plugstack.conf.d/*.conf\nmandatory y.so\n");
    write(dir + "/plugstack.conf.d/spiderflow.conf", "required spiderflow.so conf=/etc/slurm/spiderflow.conf  # ours\n");
    const Plugstack s = read_plugstack(dir + "/plugstack.conf");
    ASSERT_EQ(s.plugins.size(), 2u);
    EXPECT_EQ(s.plugins[1].path, "spiderflow.so");
    EXPECT_TRUE(s.plugins[1].required);
    EXPECT_EQ(s.plugins[1].args, std::vector<std::string>{"conf=/etc/slurm/spiderflow.conf"});
    EXPECT_EQ(s.plugins[1].where(), dir + "/plugstack.conf.d/spiderflow.conf:1");
    ASSERT_EQ(s.problems.size(), 1u);
    EXPECT_EQ(s.problems[0].rfind(dir + "/plugstack.conf:4: ", 0), 0u);
    EXPECT_EQ(read_plugstack(dir + "/none.conf").problems, std::vector<std::string>{dir + "/none.conf: cannot be read"});
    // A relative plugin path is looked for in PluginDir, first entry first.
    write(dir + "/plugstack.conf.d/spiderflow.so", "");
    EXPECT_EQ(resolve_in_plugindir("spiderflow.so", "/nonexistent:" + dir + "/plugstack.conf.d"), dir + "/plugstack.conf.d/spiderflow.so");
    EXPECT_EQ(resolve_in_plugindir("spiderflow.so", "/nonexistent"), "");
    std::system(("rm -rf " + dir).c_str());
}

TEST(LibslurmView, ReadsTheChildsReport) {
    const LibslurmView v = parse_libslurm_report(
        "path=/etc/slurm/slurm.conf\nfile.plugindir=/usr/lib/slurm\nfile.job_requeue=1\nfile.job_submit_plugins=spiderflow\n"
        "ctl.plugindir=/usr/lib/slurm\nctl.job_requeue=0\nctl.version=22.05.8\nctl.cluster_name=alpha\n");
    EXPECT_EQ(v.conf_path, "/etc/slurm/slurm.conf");
    ASSERT_TRUE(v.file && v.controller);
    EXPECT_EQ(v.file->source, "libslurm");
    EXPECT_EQ(v.file->job_submit_plugins, "spiderflow");
    EXPECT_EQ(v.file->job_requeue, 1);
    EXPECT_EQ(v.controller->source, "slurmctld");
    EXPECT_EQ(v.controller->job_requeue, 0);
    EXPECT_EQ(v.controller->version, "22.05.8");
    const LibslurmView down = parse_libslurm_report("path=/x\nfile.plugindir=/p\nctl_error=Unable to contact slurm controller\n");
    EXPECT_FALSE(down.controller.has_value());
    EXPECT_EQ(down.controller_error, "Unable to contact slurm controller");
}

TEST(LibslurmView, SurvivesSlurmsFatalOnABadFile) {
    const std::string dir = temp_dir();
    write(dir + "/slurm.conf", "ClusterName=x\nSlurmctldHost=localhost\nNoSuchKeyAtAll=1\n");
    const LibslurmView v = read_with_libslurm(dir + "/slurm.conf", false, 20);
    EXPECT_FALSE(v.file.has_value());
    EXPECT_FALSE(v.file_error.empty());  // Slurm's own words, from its fatal()
    std::system(("rm -rf " + dir).c_str());
}
