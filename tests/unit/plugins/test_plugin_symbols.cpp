// The built plugins export exactly Slurm's plugin API (checked with nm -D), and leave only
// slurm_*/spank_* (from the host process) and real libraries' symbols undefined.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

namespace {

std::set<std::string> run_nm(const std::string& args) {
    std::set<std::string> out;
    FILE* p = popen(("nm -D " + args + " 2>/dev/null").c_str(), "r");
    if (p == nullptr) return out;
    char line[1024];
    while (std::fgets(line, sizeof line, p) != nullptr) {
        std::string l(line);
        while (!l.empty() && (l.back() == '\n' || l.back() == ' ')) l.pop_back();
        const auto sp = l.find_last_of(' ');
        out.insert(sp == std::string::npos ? l : l.substr(sp + 1));
    }
    pclose(p);
    return out;
}

std::string plugin_path(const char* rel) {
    const char* b = std::getenv("SF_BUILDDIR");
    return b ? std::string(b) + "/" + rel : std::string();
}

void expect_exports(const std::string& so, const std::set<std::string>& want) {
    if (so.empty()) GTEST_SKIP() << "SF_BUILDDIR not set (run through make check)";
    if (FILE* f = std::fopen(so.c_str(), "r")) {
        std::fclose(f);
    } else {
        FAIL() << so << " not built";
    }
    const auto defined = run_nm("--defined-only " + so);
    EXPECT_EQ(defined, want) << "exports of " << so;
    for (const auto& u : run_nm("--undefined-only " + so)) {
        // Versioned symbols come from libc/libstdc++; the rest must be Slurm's host symbols or
        // from the libraries the .so records as NEEDED (CBC, hwloc, ...): nothing of ours.
        EXPECT_EQ(u.find("spiderflow"), std::string::npos) << "undefined symbol of our own: " << u;
    }
}

}  // namespace

TEST(PluginSymbols, JobSubmitExportsOnlyItsApi) {
    expect_exports(plugin_path("plugins/job_submit/.libs/job_submit_spiderflow.so"),
                   {"plugin_name", "plugin_type", "plugin_version", "init", "fini", "job_submit", "job_modify"});
}

TEST(PluginSymbols, SpankExportsOnlyItsApi) {
    expect_exports(plugin_path("plugins/spank/.libs/spiderflow.so"),
                   {"plugin_name", "plugin_type", "plugin_version", "spank_plugin_version", "slurm_spank_init",
                    "slurm_spank_init_post_opt", "slurm_spank_task_init", "slurm_spank_task_exit", "slurm_spank_job_prolog",
                    "slurm_spank_job_epilog"});
}

TEST(PluginSymbols, StepSideExportsOnlyItsEntryPoints) {
    expect_exports(plugin_path("plugins/spank/.libs/spiderflow_stepd.so"), {"spiderflow_stepd_abi", "spiderflow_stepd_call"});
}

std::string ldd_of(const std::string& so) {
    FILE* p = popen(("ldd " + so + " 2>&1").c_str(), "r");
    std::string all;
    if (p == nullptr) return all;
    char line[1024];
    while (std::fgets(line, sizeof line, p) != nullptr) all += line;
    pclose(p);
    return all;
}

// Every sbatch/srun/salloc loads the SPANK plugin: it must not pull in the planner's solver and
// numeric libraries (~3 ms more per client command for every user, plain jobs included), nor the
// shared libstdc++ (~2 ms of relocations; it is linked in statically and hidden).
TEST(PluginSymbols, SpankPluginLoadsNoHeavyLibraries) {
    const std::string so = plugin_path("plugins/spank/.libs/spiderflow.so");
    if (so.empty()) GTEST_SKIP() << "SF_BUILDDIR not set (run through make check)";
    const std::string all = ldd_of(so);
    ASSERT_NE(all.find("libz"), std::string::npos) << all;
    // A sanitizer build's runtime brings the shared libstdc++ itself.
    const bool sanitized = all.find("libasan") != std::string::npos;
    for (const char* heavy : {"libCbc", "libClp", "libCoinUtils", "libOsi", "libhwloc", "liblapack", "libblas", "libgfortran",
                              "libcurl", "libsqlite3", "libstdc++"}) {
        if (sanitized && std::string(heavy) == "libstdc++") continue;
        EXPECT_EQ(all.find(heavy), std::string::npos) << so << " needs " << heavy << ":\n" << all;
    }
}

// Each plugin links what it uses: steps never plan, so their side carries no solver; nothing
// of ours talks HTTP or SQL yet.
TEST(PluginSymbols, EachPluginLinksOnlyWhatItUses) {
    const std::string stepd = plugin_path("plugins/spank/.libs/spiderflow_stepd.so");
    const std::string submit = plugin_path("plugins/job_submit/.libs/job_submit_spiderflow.so");
    if (stepd.empty()) GTEST_SKIP() << "SF_BUILDDIR not set (run through make check)";
    const std::string s = ldd_of(stepd), j = ldd_of(submit);
    ASSERT_NE(s.find("libhwloc"), std::string::npos) << s;
    for (const char* lib : {"libCbc", "libClp", "libcurl", "libsqlite3"}) EXPECT_EQ(s.find(lib), std::string::npos) << lib << ":\n" << s;
    ASSERT_NE(j.find("libCbc"), std::string::npos) << j;
    for (const char* lib : {"libcurl", "libsqlite3"}) EXPECT_EQ(j.find(lib), std::string::npos) << lib << ":\n" << j;
}

// Built only with --with-slurm-source: skipped otherwise.
bool built(const std::string& so) {
    FILE* f = so.empty() ? nullptr : std::fopen(so.c_str(), "r");
    if (f != nullptr) std::fclose(f);
    return f != nullptr;
}

TEST(PluginSymbols, SelectExportsExactlyTheSelectApi) {
    const std::string so = plugin_path("plugins/select/.libs/select_spiderflow_cons_tres.so");
    if (!built(so)) GTEST_SKIP() << "select/spiderflow_cons_tres not built (configure --with-slurm-source)";
    // Every entry of Slurm 22.05's node_select_syms (src/common/select.c), or the daemon calls it
    // "corrupted" and exits.
    std::set<std::string> want = {"plugin_name", "plugin_type", "plugin_id", "plugin_version", "init", "fini"};
    for (const char* f : {"state_save", "state_restore", "job_init", "node_init", "job_test", "job_begin", "job_ready",
                          "job_expand", "job_resized", "job_signal", "job_fini", "job_suspend", "job_resume",
                          "step_pick_nodes", "step_start", "step_finish", "select_nodeinfo_pack",
                          "select_nodeinfo_unpack", "select_nodeinfo_alloc", "select_nodeinfo_free",
                          "select_nodeinfo_set_all", "select_nodeinfo_set", "select_nodeinfo_get",
                          "select_jobinfo_alloc", "select_jobinfo_free", "select_jobinfo_set", "select_jobinfo_get",
                          "select_jobinfo_copy", "select_jobinfo_pack", "select_jobinfo_unpack",
                          "select_jobinfo_sprint", "select_jobinfo_xstrdup", "get_info_from_plugin",
                          "update_node_config", "reconfigure", "resv_test"}) {
        want.insert(std::string("select_p_") + f);
    }
    // slurmctld's node and switch tables, defined so that the plugin loads in programs linked
    // with the public libslurm.so; exported so that in slurmctld its own copies win.
    for (const char* t : {"node_record_table_ptr", "node_record_count", "switch_record_table", "switch_record_cnt"}) want.insert(t);
    expect_exports(so, want);
}

TEST(PluginSymbols, TopologyExportsOnlyItsApi) {
    const std::string so = plugin_path("plugins/topology/.libs/topology_spiderflow_tree.so");
    if (!built(so)) GTEST_SKIP() << "topology/spiderflow_tree not built (configure --with-slurm-source)";
    // 22.05's topology interface (src/common/slurm_topology.c's syms).
    expect_exports(so, {"plugin_name", "plugin_type", "plugin_version", "init", "fini", "topo_build_config",
                        "topo_generate_node_ranking", "topo_get_node_addr"});
}

TEST(PluginSymbols, SchedExportsOnlyItsApi) {
    const std::string so = plugin_path("plugins/sched/.libs/sched_spiderflow.so");
    if (!built(so)) GTEST_SKIP() << "sched/spiderflow not built (configure --with-slurm-source)";
    expect_exports(so, {"plugin_name", "plugin_type", "plugin_version", "init", "fini", "sched_p_reconfig"});
}
