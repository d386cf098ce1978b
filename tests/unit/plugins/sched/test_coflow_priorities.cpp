// sched/spiderflow's coflow levels (coflow_priorities.cpp) on job records as slurmctld holds them:
// compiled as the plugin is (Slurm's internal headers); the test plays slurmctld (its job list,
// locks and job lookup), the public libslurm gives lists, environment arrays and logging.
// Built only with --with-slurm-source.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "services/launch/launch_contract.h"
#include "common/topology/topology_json.h"
#include "plugins/sched/coflow_priorities.h"
#include "plugins/slurm_internal.h"
#include "services/slurmjob/coflow_levels.h"
#include "tests/unit/common/planner/fixtures.h"
#include "tests/unit/services/slurmjob/carried_summary.h"

using namespace spiderflow;

// slurmctld's side: the job list, its locks (counted, to see each pass take and give back its
// own) and job lookup.
namespace {
int g_locks_held = 0;
int g_write_locks = 0;
}  // namespace

extern "C" {
List job_list;
time_t last_job_update;

void lock_slurmctld(slurmctld_lock_t lock_levels) {
    ++g_locks_held;
    g_write_locks += lock_levels.job == WRITE_LOCK;
}
void unlock_slurmctld(slurmctld_lock_t) { --g_locks_held; }

job_record_t* find_job_record(uint32_t job_id) {
    ListIterator it = list_iterator_create(job_list);
    job_record_t* found = nullptr;
    while (auto* job = static_cast<job_record_t*>(list_next(it))) {
        if (job->job_id == job_id) found = job;
    }
    list_iterator_destroy(it);
    return found;
}

int envcount(char** env) {
    int n = 0;
    while (env != nullptr && env[n] != nullptr) ++n;
    return n;
}
}  // extern "C"

namespace {

// A spiderflow.conf with the coflow levels on over the two-site topology (fixtures.h), named by
// SPIDERFLOW_CONF as plugstack.conf's conf= would.
class SiteFiles {
public:
    // `topology`: another path than the file written here.
    explicit SiteFiles(const std::string& coflow_levels = "yes", const std::string& topology = "") {
        char dir_template[] = "/tmp/sf_sched_XXXXXX";
        dir_ = ::mkdtemp(dir_template);
        const std::string written = dir_ + "/topology.json";
        std::ofstream(written) << topology_to_json(sftest::two_sites(10));
        std::ofstream(dir_ + "/spiderflow.conf") << "coflow_levels = " << coflow_levels
                                                  << "\ntopology = " << (topology.empty() ? written : topology) << "\n";
        ::setenv("SPIDERFLOW_CONF", (dir_ + "/spiderflow.conf").c_str(), 1);
    }
    ~SiteFiles() {
        ::unsetenv("SPIDERFLOW_CONF");
        std::remove((dir_ + "/topology.json").c_str());
        std::remove((dir_ + "/spiderflow.conf").c_str());
        ::rmdir(dir_.c_str());
    }
    SiteFiles(const SiteFiles&) = delete;
    SiteFiles& operator=(const SiteFiles&) = delete;

private:
    std::string dir_;
};

// Jobs in slurmctld's job list, owned here.
class Jobs {
public:
    Jobs() { job_list = list_create(nullptr); }
    ~Jobs() {
        list_destroy(job_list);
        job_list = nullptr;
        for (auto& j : jobs_) {
            for (uint32_t i = 0; j->spank_job_env != nullptr && j->spank_job_env[i] != nullptr; ++i) xfree(j->spank_job_env[i]);
            xfree(j->spank_job_env);
        }
    }
    Jobs(const Jobs&) = delete;
    Jobs& operator=(const Jobs&) = delete;

    job_record_t* add(uint32_t id, uint32_t state, const std::string& comment) {
        comments_.push_back(std::make_unique<std::string>(comment));
        jobs_.push_back(std::make_unique<job_record_t>());
        job_record_t* job = jobs_.back().get();
        *job = job_record_t{};
        job->job_id = id;
        job->job_state = state;
        job->admin_comment = comments_.back()->data();
        list_append(job_list, job);
        return job;
    }

private:
    std::vector<std::unique_ptr<std::string>> comments_;
    std::vector<std::unique_ptr<job_record_t>> jobs_;
};

// The job's traffic level as its spank env holds it; "" when none.
std::string level_of(const job_record_t* job) {
    const std::string prefix = std::string(env::kTrafficLevel) + "=";
    for (uint32_t i = 0; i < job->spank_job_env_size; ++i) {
        const std::string e = job->spank_job_env[i];
        if (e.rfind(prefix, 0) == 0) return e.substr(prefix.size());
    }
    return "";
}

// Two plans over both sites' WAN link: which one's coflow is the smaller bottleneck.
struct TwoCrossSite {
    std::string small = slurmjob::test::summary_for(sftest::two_sites(10), "llama3-8b", 256, 64);
    std::string large = slurmjob::test::summary_for(sftest::two_sites(10), "gpt3-13b", 256, 64);
    bool small_first() const {
        const Topology t = sftest::two_sites(10);
        return *slurmjob::wan_bottleneck_s(small, t) < *slurmjob::wan_bottleneck_s(large, t);
    }
};

}  // namespace

TEST(CoflowPriorities, PendingCrossSiteJobsGetLevelsSmallestBottleneckFirst) {
    const SiteFiles site;
    const TwoCrossSite plans;
    Jobs jobs;
    job_record_t* small = jobs.add(11, JOB_PENDING, plans.small);
    job_record_t* large = jobs.add(12, JOB_PENDING, plans.large);
    job_record_t* plain = jobs.add(13, JOB_PENDING, "an admin's own comment");
    last_job_update = 0;
    g_write_locks = 0;
    plugin::CoflowPriorities().cycle();
    EXPECT_EQ(g_locks_held, 0);
    EXPECT_EQ(g_write_locks, 1) << "one write lock for all the changes";
    EXPECT_EQ(level_of(small), plans.small_first() ? "0" : "1");
    EXPECT_EQ(level_of(large), plans.small_first() ? "1" : "0");
    EXPECT_EQ(level_of(plain), "");
    EXPECT_EQ(plain->spank_job_env, nullptr);
    EXPECT_NE(last_job_update, 0) << "changed jobs are saved with the state";
}

// A running job keeps the class it started with; a pass that changes nothing touches nothing.
TEST(CoflowPriorities, RunningJobsKeepTheirLevelAndNothingChangesTwice) {
    const SiteFiles site;
    const TwoCrossSite plans;
    Jobs jobs;
    job_record_t* running = jobs.add(21, JOB_RUNNING, plans.large);
    env_array_overwrite(&running->spank_job_env, env::kTrafficLevel, "7");
    running->spank_job_env_size = 1;
    job_record_t* pending = jobs.add(22, JOB_PENDING, plans.small);
    plugin::CoflowPriorities priorities;
    priorities.cycle();
    EXPECT_EQ(level_of(running), "7");
    EXPECT_EQ(level_of(pending), plans.small_first() ? "0" : "1");

    last_job_update = 0;
    g_write_locks = 0;
    priorities.cycle();
    EXPECT_EQ(last_job_update, 0);
    EXPECT_EQ(level_of(pending), plans.small_first() ? "0" : "1");
    EXPECT_EQ(g_locks_held, 0);
}

// coflow_levels = no, or a topology that cannot be read: no job is touched, and the pass returns.
TEST(CoflowPriorities, OffOrBrokenSitesTouchNoJob) {
    const TwoCrossSite plans;
    {
        const SiteFiles off("no");
        Jobs jobs;
        job_record_t* job = jobs.add(31, JOB_PENDING, plans.small);
        plugin::CoflowPriorities().cycle();
        EXPECT_EQ(job->spank_job_env, nullptr);
    }
    {
        const SiteFiles broken("yes", "/nonexistent/topology.json");
        Jobs jobs;
        job_record_t* job = jobs.add(32, JOB_PENDING, plans.small);
        g_write_locks = 0;
        plugin::CoflowPriorities().cycle();
        EXPECT_EQ(job->spank_job_env, nullptr);
        EXPECT_EQ(g_write_locks, 0);
        EXPECT_EQ(g_locks_held, 0);
    }
}
