// sbatch's hand-off: what the agent makes of a held home job that job_submit planned across
// clusters (its AdminComment), and what it refuses to hand on.
#include <gtest/gtest.h>

#include <algorithm>

#include "services/coalloc/xjob_json.h"
#include "services/slurmjob/plan_summary.h"
#include "tests/unit/services/slurmjob/summary_fixture.h"
#include "common/util/errors.h"
#include "services/agent/home_jobs.h"

using namespace spiderflow;
using namespace spiderflow::agent;

namespace {

HomeJob held_job(const std::string& parts) {
    HomeJob h;
    h.job_id = 77;
    h.user = "alice";
    h.account = "ml";
    h.time_limit_s = 3600;
    h.tasks_per_node = 8;
    h.summary = parts.empty() ? slurmjob::format_plan_summary(slurmjob::test::alpha_beta_summary()) : parts;
    h.held = true;
    return h;
}

}  // namespace

TEST(HomeJobs, AHeldJobBecomesACrossSiteJobWithItsOwnJobAsTheHomePart) {
    const coalloc::XJob x = xjob_for_home_job("alpha", held_job(""), "#!/bin/bash\nsrun train.py\n");
    EXPECT_EQ(x.id, "alpha:77");
    EXPECT_EQ(x.home_job, 77u);
    EXPECT_EQ(x.user, "alice");
    EXPECT_EQ(x.time_limit_s, 3600);
    ASSERT_EQ(x.parts.size(), 2u);
    EXPECT_EQ(x.parts[0].spec.cluster, "alpha");
    EXPECT_EQ(x.parts[0].spec.ranks, 16);
    EXPECT_EQ(x.parts[1].spec.cluster, "beta");
    EXPECT_EQ(x.parts[1].spec.nodes, 1);
    EXPECT_FALSE(x.one_task_per_node);
    bool tp = false, clusters = false;
    for (const auto& [k, v] : x.step_env) {
        tp = tp || (k == "SPIDERFLOW_TP" && v == "8");
        clusters = clusters || (k == "SPIDERFLOW_CLUSTERS" && v == "alpha,beta");
    }
    EXPECT_TRUE(tp && clusters);
    // What the broker takes: the request reads back the same.
    const coalloc::XJob back = coalloc::xjob_request_from_json(coalloc::xjob_request_to_json(x), "test");
    EXPECT_EQ(back.home_job, 77u);
    auto sorted = [](std::vector<std::pair<std::string, std::string>> v) {
        std::sort(v.begin(), v.end());
        return v;
    };
    EXPECT_EQ(sorted(back.step_env), sorted(x.step_env));
}

TEST(HomeJobs, OneLauncherPerNodeTravelsToTheOtherParts) {
    HomeJob h = held_job("");
    h.tasks_per_node = 1;
    EXPECT_TRUE(xjob_for_home_job("alpha", h, "#!/bin/sh\n").one_task_per_node);
}

TEST(HomeJobs, AJobWithoutACrossSitePlanOrWithoutAPartHereIsNotHandedOn) {
    EXPECT_THROW(xjob_for_home_job("alpha", held_job("spiderflow plan model=x tp=1 pp=1 dp=1 mb=1 nodes=1x8 iter_s=1"), "#!/bin/sh\n"),
                 std::invalid_argument);
    EXPECT_THROW(xjob_for_home_job("alpha", held_job("an admin's note"), "#!/bin/sh\n"), std::invalid_argument);
    EXPECT_THROW(xjob_for_home_job("gamma", held_job(""), "#!/bin/sh\n"), std::invalid_argument);
}

TEST(HomeJobs, StepEnvironmentFromTheBrokerIsSpiderflowNamesOnly) {
    nlohmann::json j = coalloc::xjob_request_to_json(xjob_for_home_job("alpha", held_job(""), "#!/bin/sh\n"));
    j["step_env"]["LD_PRELOAD"] = "/tmp/evil.so";
    EXPECT_THROW(coalloc::xjob_request_from_json(j, "test"), InputError);
    j["step_env"].erase("LD_PRELOAD");
    j["step_env"]["SPIDERFLOW_X"] = "a\nb";
    EXPECT_THROW(coalloc::xjob_request_from_json(j, "test"), InputError);
}
