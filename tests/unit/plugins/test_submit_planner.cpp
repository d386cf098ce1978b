// decide_submission: what job_submit does with a job, without Slurm.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "common/topology/topology.h"
#include "plugins/common/plan_summary.h"
#include "plugins/common/submit_planner.h"

using namespace spiderflow;
using namespace spiderflow::plugin;

namespace {

std::shared_ptr<const Topology> cluster(int nodes, const char* gpu_type = "H100-SXM") {
    auto t = std::make_shared<Topology>();
    Cluster c;
    c.name = "here";
    c.intra_bandwidth_Bps = 50e9;
    c.intra_latency_s = 5e-6;
    for (int i = 0; i < nodes; ++i) {
        Node n;
        n.name = "n" + std::to_string(i);
        n.gpus = 8;
        n.gpu_type = gpu_type;
        n.nvlink_domain_size = 8;
        n.nics = {{"mlx5_0", "ib", 50e9, 0}};
        n.leaf_switch = i % 2 ? "s2" : "s1";
        c.nodes.push_back(n);
    }
    c.switches = {Switch{"s1", {}, {}, 0}, Switch{"s2", {}, {}, 0}};
    t->clusters.push_back(c);
    t->finalize("test");
    return t;
}

SiteConfig config(const std::string& dir) {
    SiteConfig c;
    c.state_dir = dir;
    c.time_budget_s = 10;
    return c;
}

JobOptions opts(const char* model, int batch) {
    JobOptions o;
    o.model = model;
    o.global_batch = batch;
    return o;
}

std::string temp_dir() {
    char tmpl[] = "/tmp/sf-submit-test.XXXXXX";
    const char* d = mkdtemp(tmpl);
    return d ? d : "/tmp";
}

}  // namespace

TEST(SubmitPlanner, NoOptionsLeavesTheJobAlone) {
    const auto d = decide_submission(JobOptions{}, 16, cluster(2), config("/tmp"));
    EXPECT_EQ(d.outcome, Outcome::untouched);
}

TEST(SubmitPlanner, DisabledSiteLeavesTheJobAlone) {
    SiteConfig c = config("/tmp");
    c.enabled = false;
    EXPECT_EQ(decide_submission(opts("llama3-8b", 64), 16, cluster(2), c).outcome, Outcome::untouched);
}

TEST(SubmitPlanner, MissingTopologyFailsOpen) {
    const auto d = decide_submission(opts("llama3-8b", 64), 16, nullptr, config("/tmp"));
    EXPECT_EQ(d.outcome, Outcome::fail_open);
    SiteConfig c = config("/tmp");
    c.cluster = "elsewhere";
    EXPECT_EQ(decide_submission(opts("llama3-8b", 64), 16, cluster(2), c).outcome, Outcome::fail_open);
}

TEST(SubmitPlanner, BadSpecsAreRejectedWithWhatWouldFit) {
    const auto topo = cluster(2);
    auto d = decide_submission(opts("gpt-17", 64), 8, topo, config("/tmp"));
    EXPECT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("llama3-8b"), std::string::npos) << d.message;
    d = decide_submission(opts("llama3-8b", 64), 64, topo, config("/tmp"));
    EXPECT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("at most 16"), std::string::npos) << d.message;
    d = decide_submission(opts("llama3-8b", 64), std::nullopt, topo, config("/tmp"));
    EXPECT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("--gpus"), std::string::npos);
    JobOptions no_batch;
    no_batch.model = "llama3-8b";
    EXPECT_EQ(decide_submission(no_batch, 8, topo, config("/tmp")).outcome, Outcome::reject);
    JobOptions bad_policy = opts("llama3-8b", 64);
    bad_policy.policy = "magic";
    EXPECT_EQ(decide_submission(bad_policy, 8, topo, config("/tmp")).outcome, Outcome::reject);
    JobOptions bad_plan = opts("llama3-8b", 64);
    bad_plan.plan_file = "/nonexistent/plan.json";
    d = decide_submission(bad_plan, 8, topo, config("/tmp"));
    EXPECT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("--llm-plan"), std::string::npos);
}

TEST(SubmitPlanner, GoodSpecRewritesAndWritesThePlan) {
    const std::string dir = temp_dir();
    const auto d = decide_submission(opts("llama3-8b", 64), 16, cluster(4), config(dir));
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message;
    const SubmitRewrite& r = d.rewrite;
    EXPECT_EQ(r.num_tasks, 16);
    EXPECT_EQ(r.nodes * r.gpus_per_node >= 16, true);
    EXPECT_LE(r.gpus_per_node, 8);
    EXPECT_EQ(r.gpu_type, "H100-SXM");
    std::map<std::string, std::string> env(r.job_env.begin(), r.job_env.end());
    const int tp = std::stoi(env.at("SPIDERFLOW_TP")), pp = std::stoi(env.at("SPIDERFLOW_PP")),
              dp = std::stoi(env.at("SPIDERFLOW_DP"));
    EXPECT_EQ(tp * pp * dp, 16);
    // The job-wide --gpus count sbatch exported would become every inner srun's request.
    EXPECT_EQ(r.slurm_env_unset, std::vector<std::string>{"SLURM_GPUS"});
    std::map<std::string, std::string> slurm(r.slurm_env.begin(), r.slurm_env.end());
    EXPECT_EQ(slurm["SLURM_GPUS_PER_NODE"], std::to_string(r.gpus_per_node));
    ASSERT_FALSE(r.plan_path.empty());
    // The AdminComment summary carries the plan back to salloc/srun jobs' steps.
    PlanSummary back;
    ASSERT_TRUE(parse_plan_summary(r.summary, &back)) << r.summary;
    EXPECT_EQ(back.tp, tp);
    EXPECT_EQ(back.pp, pp);
    EXPECT_EQ(back.dp, dp);
    EXPECT_EQ(back.nodes, r.nodes);
    EXPECT_EQ(back.gpus_per_node, r.gpus_per_node);
    EXPECT_EQ(back.plan_path, r.plan_path);
    const auto step_env = summary_step_env(back);
    std::map<std::string, std::string> step(step_env.begin(), step_env.end());
    EXPECT_EQ(step["SPIDERFLOW_TP"], env.at("SPIDERFLOW_TP"));
    EXPECT_EQ(step["SPIDERFLOW_PLAN"], r.plan_path);
    std::ifstream f(r.plan_path);
    ASSERT_TRUE(f.good()) << r.plan_path;
    std::stringstream text;
    text << f.rdbuf();
    EXPECT_NE(text.str().find("llama3-8b"), std::string::npos);
    EXPECT_EQ(r.plan_path, dir + "/" + content_hash(text.str()) + ".json") << "the file is named by its content";

    // --llm-plan: the same plan handed back is used as is.
    JobOptions given = opts("llama3-8b", 64);
    given.plan_file = r.plan_path;
    const auto again = decide_submission(given, std::nullopt, cluster(4), config(dir));
    ASSERT_EQ(again.outcome, Outcome::rewrite) << again.message;
    EXPECT_EQ(again.rewrite.plan_path, r.plan_path);
}

TEST(PlanSummary, OnlyOurOwnSummaryParses) {
    const std::string text = "spiderflow plan model=llama3-8b tp=2 pp=4 dp=8 mb=1 nodes=8x8 iter_s=1.25";
    PlanSummary back;
    ASSERT_TRUE(parse_plan_summary(text, &back));
    EXPECT_EQ(back.nodes, 8);
    EXPECT_EQ(format_plan_summary(back), text);
    EXPECT_EQ(back.dp, 8);
    EXPECT_TRUE(back.plan_path.empty());
    EXPECT_EQ(summary_step_env(back).size(), 4u) << "no SPIDERFLOW_PLAN without a plan file";
    EXPECT_FALSE(parse_plan_summary("requeued by admin", &back));
    EXPECT_FALSE(parse_plan_summary("spiderflow plan model=x tp=0 pp=1 dp=1 mb=1 nodes=1x8", &back));
    EXPECT_FALSE(parse_plan_summary("spiderflow plan model=x tp=2 pp=1 dp=1 mb=1 nodes=8", &back));
}

TEST(SubmitPlanner, ResubmitsOfTheSameSpecReuseTheDecision) {
    const std::string dir = temp_dir();
    const auto topo = cluster(4);
    const auto first = decide_submission(opts("llama3-8b", 128), 16, topo, config(dir));
    ASSERT_EQ(first.outcome, Outcome::rewrite) << first.message;
    EXPECT_FALSE(first.from_cache);
    const auto again = decide_submission(opts("llama3-8b", 128), 16, topo, config(dir));
    EXPECT_TRUE(again.from_cache);
    EXPECT_EQ(again.rewrite.summary, first.rewrite.summary);
    EXPECT_EQ(again.rewrite.job_env, first.rewrite.job_env);
    // Another request, a reloaded topology, or a removed plan file: planned afresh.
    EXPECT_FALSE(decide_submission(opts("llama3-8b", 128), 8, topo, config(dir)).from_cache);
    EXPECT_FALSE(decide_submission(opts("llama3-8b", 128), 16, cluster(4), config(dir)).from_cache);
    const auto fresh_topo = cluster(4);
    const auto planned = decide_submission(opts("llama3-8b", 256), 16, fresh_topo, config(dir));
    ASSERT_EQ(planned.outcome, Outcome::rewrite) << planned.message;
    ASSERT_EQ(std::remove(planned.rewrite.plan_path.c_str()), 0);
    const auto replanned = decide_submission(opts("llama3-8b", 256), 16, fresh_topo, config(dir));
    EXPECT_FALSE(replanned.from_cache);
    EXPECT_TRUE(std::ifstream(replanned.rewrite.plan_path).good()) << "the plan file is written again";
}

TEST(SubmitPlanner, UnwritableStateDirStillPlans) {
    const auto d = decide_submission(opts("llama3-8b", 64), 8, cluster(1), config("/proc/no-such-dir"));
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message;
    EXPECT_TRUE(d.rewrite.plan_path.empty());
    EXPECT_EQ(d.rewrite.summary.find("plan="), std::string::npos);
}
