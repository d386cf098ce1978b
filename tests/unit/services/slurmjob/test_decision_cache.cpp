// The decision cache in front of the submit decision (decision_cache.cpp): what a resubmit
// reuses, what it may not, and the key it is filed under.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "common/plan/plan_transport.h"
#include "services/launch/launch_contract.h"
#include "services/slurmjob/submit_planner.h"
#include "tests/unit/services/slurmjob/submit_fixture.h"

using namespace spiderflow;
using namespace spiderflow::slurmjob;
using namespace spiderflow::slurmjob::testing;

namespace {

// The same submit twice on one site: the first answer and the resubmit's.
struct Twice {
    SubmitDecision first, again;
};
Twice submit_twice(const JobOptions& o, const SlurmRequest& r, const std::shared_ptr<const SubmitSite>& site,
                   const SpiderflowConf& c = config("/tmp")) {
    Twice t;
    t.first = decide_submission(o, r, site, c);
    t.again = decide_submission(o, r, site, c);
    return t;
}

}  // namespace

TEST(DecisionCache, ResubmitsOfTheSameSpecReuseTheDecision) {
    const auto topo = cluster(4);
    const auto [first, again] = submit_twice(opts("llama3-8b", 128), gpus(16), topo);
    ASSERT_EQ(first.outcome, Outcome::rewrite) << first.message;
    EXPECT_FALSE(first.from_cache);
    EXPECT_TRUE(again.from_cache);
    EXPECT_EQ(again.rewrite.summary, first.rewrite.summary);
    EXPECT_EQ(again.rewrite.job_env, first.rewrite.job_env);
    // Another request or a reloaded topology: planned afresh.
    EXPECT_FALSE(decide_submission(opts("llama3-8b", 128), gpus(8), topo, config("/tmp")).from_cache);
    EXPECT_FALSE(decide_submission(opts("llama3-8b", 128), gpus(16), cluster(4), config("/tmp")).from_cache);
}

// The decision cache is per site object: a new snapshot is a new site and plans afresh.
TEST(DecisionCache, ANewSiteStateMissesTheDecisionCache) {
    const auto topo = cluster_topology(4);
    const auto first = site_of(topo);
    EXPECT_FALSE(decide_submission(opts("llama3-8b", 96), gpus(16), first, config("/tmp")).from_cache);
    EXPECT_TRUE(decide_submission(opts("llama3-8b", 96), gpus(16), first, config("/tmp")).from_cache);
    EXPECT_FALSE(decide_submission(opts("llama3-8b", 96), gpus(16), site_of(topo), config("/tmp")).from_cache);
}

// A job that names no policy is planned by the site's: the key must say which, or a change of
// spiderflow.conf's policy= would be answered from the old one's entry.
TEST(DecisionCache, TheKeyNamesThePolicyThatPlans) {
    SpiderflowConf site = config("/tmp");
    site.policy = "spinsearch";
    JobOptions unnamed = opts("llama3-8b", 64);
    JobOptions named = unnamed;
    named.policy = "spinsearch";
    EXPECT_EQ(decision_key(unnamed, gpus(16), site), decision_key(named, gpus(16), site));
    EXPECT_EQ(decision_key(unnamed, gpus(16), site).options.policy, "spinsearch");
    named.policy = "tpa-ilp";
    EXPECT_NE(decision_key(unnamed, gpus(16), site), decision_key(named, gpus(16), site));
    SpiderflowConf other = site;
    other.policy = "tpa-ilp";
    EXPECT_NE(decision_key(unnamed, gpus(16), site), decision_key(unnamed, gpus(16), other));
    EXPECT_NE(decision_key(unnamed, gpus(16), site), decision_key(unnamed, gpus(24), site));
}

// Same spec, same answer: a refusal is cached as a plan is.
TEST(DecisionCache, ARefusalIsReusedToo) {
    const auto [first, again] = submit_twice(opts("llama3-8b", 64), gpus(64), cluster(2));
    ASSERT_EQ(first.outcome, Outcome::reject) << first.message;
    EXPECT_FALSE(first.from_cache);
    EXPECT_EQ(again.outcome, Outcome::reject);
    EXPECT_TRUE(again.from_cache);
    EXPECT_EQ(again.message, first.message);
}

// Failing open (here: no site at all) is not an answer about the spec: the next submit tries again.
TEST(DecisionCache, FailingOpenIsNeverCached) {
    SpiderflowConf elsewhere = config("/tmp");
    elsewhere.cluster = "elsewhere";   // not in the topology: fail open
    const auto [first, again] = submit_twice(opts("llama3-8b", 64), gpus(16), cluster(2), elsewhere);
    ASSERT_EQ(first.outcome, Outcome::fail_open) << first.message;
    EXPECT_EQ(again.outcome, Outcome::fail_open);
    EXPECT_FALSE(again.from_cache);
}

// --llm-plan's content may differ between two submits naming the same file: never cached.
TEST(DecisionCache, AGivenPlanIsReadAfreshEachTime) {
    const auto site = cluster(4);
    const auto planned = decide_submission(opts("llama3-8b", 64), gpus(16), site, config("/tmp"));
    ASSERT_EQ(planned.outcome, Outcome::rewrite) << planned.message;
    std::map<std::string, std::string> env(planned.rewrite.job_env.begin(), planned.rewrite.job_env.end());
    JobOptions given;
    given.plan_file = "plan.json";
    given.plan_content = env.at(env::kPlanData);
    EXPECT_EQ(decide_submission(given, gpus(16), site, config("/tmp")).outcome, Outcome::rewrite);
    const auto again = decide_submission(given, gpus(16), site, config("/tmp"));
    EXPECT_EQ(again.outcome, Outcome::rewrite) << again.message;
    EXPECT_FALSE(again.from_cache);
    given.plan_content = "z1:AAAA";   // the same file name, another content
    EXPECT_EQ(decide_submission(given, gpus(16), site, config("/tmp")).outcome, Outcome::reject);
}
