// decide_submission: what job_submit does with a job, without Slurm.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>

#include "common/site/site_json.h"
#include "common/topology/topology.h"
#include "common/topology/topology_json.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_transport.h"
#include "services/slurmjob/plan_summary.h"
#include "services/slurmjob/submit_planner.h"
#include "tests/unit/services/slurmjob/submit_fixture.h"

using namespace spiderflow;
using namespace spiderflow::slurmjob;
using namespace spiderflow::slurmjob::testing;

TEST(SubmitPlanner, NoOptionsLeavesTheJobAlone) {
    const auto d = decide_submission(JobOptions{}, gpus(16), cluster(2), config("/tmp"));
    EXPECT_EQ(d.outcome, Outcome::untouched);
}

TEST(SubmitPlanner, DisabledSiteLeavesTheJobAlone) {
    SpiderflowConf c = config("/tmp");
    c.enabled = false;
    EXPECT_EQ(decide_submission(opts("llama3-8b", 64), gpus(16), cluster(2), c).outcome, Outcome::untouched);
}

TEST(SubmitPlanner, MissingTopologyFailsOpen) {
    const auto d = decide_submission(opts("llama3-8b", 64), gpus(16), nullptr, config("/tmp"));
    EXPECT_EQ(d.outcome, Outcome::fail_open);
    SpiderflowConf c = config("/tmp");
    c.cluster = "elsewhere";
    EXPECT_EQ(decide_submission(opts("llama3-8b", 64), gpus(16), cluster(2), c).outcome, Outcome::fail_open);
    // A hand-written slurm.conf with Gres=gpu:4 and no type: the site's topology is at fault.
    const auto d2 = decide_submission(opts("llama3-8b", 64), gpus(16), cluster(2, ""), config("/tmp"));
    EXPECT_EQ(d2.outcome, Outcome::fail_open) << d2.message;
    EXPECT_NE(d2.message.find("GPUs of unknown type"), std::string::npos) << d2.message;
    // ... or with no NICs and no intra_gbps (a slurm.conf names neither): a job on several nodes
    // passes unplanned, one node is still planned.
    auto no_nics = cluster_topology(2);
    for (auto& n : no_nics->clusters[0].nodes) n.nics.clear();
    no_nics->clusters[0].intra_bandwidth_Bps = 0;
    no_nics->finalize("test");
    const auto flat = site_of(no_nics);
    const auto d3 = decide_submission(opts("llama3-8b", 64), gpus(16), flat, config("/tmp"));
    EXPECT_EQ(d3.outcome, Outcome::fail_open) << d3.message;
    EXPECT_NE(d3.message.find("no network interfaces"), std::string::npos) << d3.message;
    EXPECT_EQ(decide_submission(opts("llama3-8b", 64), gpus(8), flat, config("/tmp")).outcome, Outcome::rewrite);
    // The cluster's node-to-node figure (intra_gbps) rates nodes that list no NICs, as
    // doc/topology-format.md says.
    auto figure_only = cluster_topology(2);
    for (auto& n : figure_only->clusters[0].nodes) n.nics.clear();
    figure_only->finalize("test");
    EXPECT_EQ(decide_submission(opts("llama3-8b", 64), gpus(16), site_of(figure_only), config("/tmp")).outcome, Outcome::rewrite);
}

TEST(SubmitPlanner, BadSpecsAreRejectedWithWhatWouldFit) {
    const auto topo = cluster(2);
    auto d = decide_submission(opts("gpt-17", 64), gpus(8), topo, config("/tmp"));
    EXPECT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("llama3-8b"), std::string::npos) << d.message;
    d = decide_submission(opts("llama3-8b", 64), gpus(64), topo, config("/tmp"));
    EXPECT_EQ(d.outcome, Outcome::reject);
    EXPECT_EQ(d.reject_kind, RejectKind::no_fit);
    EXPECT_NE(d.message.find("at most 16"), std::string::npos) << d.message;
    d = decide_submission(opts("llama3-8b", 64), gpus(std::nullopt), topo, config("/tmp"));
    EXPECT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("--gpus"), std::string::npos);
    JobOptions no_batch;
    no_batch.model = "llama3-8b";
    EXPECT_EQ(decide_submission(no_batch, gpus(8), topo, config("/tmp")).outcome, Outcome::reject);
    JobOptions bad_policy = opts("llama3-8b", 64);
    bad_policy.policy = "magic";
    EXPECT_EQ(decide_submission(bad_policy, gpus(8), topo, config("/tmp")).outcome, Outcome::reject);
}

TEST(SubmitPlanner, AGpuTypeWithoutACountIsNamed) {
    SlurmRequest r;
    r.gpus = 1;
    r.gpu_type = "abc";
    r.gpu_count_missing = true;
    r.gpus_text = "--gpus=abc";
    const auto d = decide_submission(opts("llama3-8b", 64), r, cluster(2), config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_EQ(d.reject_kind, RejectKind::gpu_count_missing);
    EXPECT_NE(d.message.find("--gpus=abc names no GPU count"), std::string::npos) << d.message;
    EXPECT_EQ(d.message.find("say how many"), std::string::npos) << d.message;
}

TEST(SubmitPlanner, GoodSpecRewritesWithOneTaskLayoutAndCarriesThePlan) {
    const auto d = decide_submission(opts("llama3-8b", 64), gpus(16), cluster(4), config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message;
    const SubmitRewrite& r = d.rewrite;
    EXPECT_EQ(r.num_tasks, 16);
    EXPECT_EQ(r.nodes * r.gpus_per_node, 16);
    EXPECT_EQ(r.tasks_per_node, r.gpus_per_node) << "every node gets the same tasks, one per GPU";
    EXPECT_EQ(r.gpu_type, "H100-SXM");
    EXPECT_NE(r.user_note.find("planned llama3-8b"), std::string::npos) << r.user_note;
    std::map<std::string, std::string> env(r.job_env.begin(), r.job_env.end());
    const int tp = std::stoi(env.at("SPIDERFLOW_TP")), pp = std::stoi(env.at("SPIDERFLOW_PP")),
              dp = std::stoi(env.at("SPIDERFLOW_DP"));
    EXPECT_EQ(tp * pp * dp, 16);
    const Plan carried = plan_from_json(decode_plan_text(env.at(env::kPlanData)), "carried", cluster_topology(4).get());
    EXPECT_EQ(carried.world_size(), 16);
    EXPECT_EQ(carried.tp, tp);
    // The job-wide --gpus count sbatch exported would become every inner srun's request.
    EXPECT_EQ(r.slurm_env_unset, std::vector<std::string>{"SLURM_GPUS"});
    std::map<std::string, std::string> slurm(r.slurm_env.begin(), r.slurm_env.end());
    EXPECT_EQ(slurm["SLURM_GPUS_PER_NODE"], std::to_string(r.gpus_per_node));
    // The AdminComment summary carries the degrees back to salloc/srun jobs' steps.
    PlanSummary back;
    ASSERT_TRUE(parse_plan_summary(r.summary, &back)) << r.summary;
    EXPECT_EQ(back.tp, tp);
    EXPECT_EQ(back.pp, pp);
    EXPECT_EQ(back.dp, dp);
    EXPECT_EQ(back.nodes, r.nodes);
    EXPECT_EQ(back.gpus_per_node, r.gpus_per_node);
    EXPECT_EQ(back.plan_data, env.at(env::kPlanData)) << "salloc/srun jobs read the plan back from here";
    EXPECT_EQ(r.summary.find(".json"), std::string::npos) << "no path: nothing is written to disk";
}

std::shared_ptr<const SubmitSite> four_gpu_nodes(int nodes) {
    auto t = cluster_topology(nodes);
    for (auto& n : t->clusters[0].nodes) {
        n.gpus = 4;
        n.nvlink_domain_size = 4;
    }
    t->finalize("test");
    return site_of(t);
}

// --gpus=7 on 4-GPU nodes used to become 2 nodes and 7 tasks, and Slurm put 6 on one node.
TEST(SubmitPlanner, UnevenGpuCountsAreRejectedWithWhatFits) {
    const auto d = decide_submission(opts("llama3-8b", 56), gpus(7), four_gpu_nodes(4), config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject) << d.rewrite.summary;
    EXPECT_EQ(d.reject_kind, RejectKind::gpus);
    EXPECT_NE(d.message.find("--gpus=4 or --gpus=8"), std::string::npos) << d.message;
}

TEST(SubmitPlanner, ExplicitNodesAndTasksAreConstraintsNotOverridden) {
    const auto topo = cluster(4);
    SlurmRequest r = gpus(8);
    r.nodes = 4;  // -N4 --gpus=8: the plan uses one node
    auto d = decide_submission(opts("llama3-8b", 64), r, topo, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_EQ(d.reject_kind, RejectKind::nodes);
    EXPECT_NE(d.message.find("4 nodes (-N)"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("1 node(s) x 8"), std::string::npos) << d.message;

    r = gpus(16);
    r.ntasks_per_node = 1;  // one launcher per node (torchrun): kept
    d = decide_submission(opts("llama3-8b", 64), r, topo, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message;
    EXPECT_EQ(d.rewrite.tasks_per_node, 1);
    EXPECT_EQ(d.rewrite.num_tasks, d.rewrite.nodes);

    r.ntasks_per_node = 3;
    d = decide_submission(opts("llama3-8b", 64), r, topo, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_EQ(d.reject_kind, RejectKind::tasks);
    EXPECT_NE(d.message.find("--ntasks-per-node=3"), std::string::npos) << d.message;

    r = gpus(16);
    r.gpu_type = "h100";
    d = decide_submission(opts("llama3-8b", 64), r, topo, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message;
    EXPECT_EQ(d.rewrite.slurm_gpu_type, "h100") << "--gpus=h100:16 keeps its type";
}

// Two one-node clusters: a small model on both runs slower than on one.
std::shared_ptr<const SubmitSite> two_small_sites() {
    return make_submit_site(std::make_shared<const SiteState>(two_clusters(1, 1)), true);
}

// A cross-site request that one site beats: sbatch says so with `spiderflow plan`'s verdict and
// the request that does better; cross_site_loss = refuse refuses it; --llm-gpus-mode=at-most lets
// SpiderFlow take the better count instead.
TEST(SubmitPlanner, ACrossSiteRequestThatDoesNotPayIsNamedRefusedOrBettered) {
    const auto site = two_small_sites();
    auto d = decide_submission(opts("gpt3-1.3b", 32), gpus(16), site, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message;
    EXPECT_TRUE(d.rewrite.hold);
    EXPECT_NE(d.rewrite.user_note.find("\nspiderflow: This request does not pay: the best plan in one site runs "),
              std::string::npos) << d.rewrite.user_note;
    EXPECT_NE(d.rewrite.user_note.find("on 8 GPUs (fewer). Ask for --gpus=8"), std::string::npos) << d.rewrite.user_note;
    EXPECT_NE(d.rewrite.user_note.find("--llm-gpus-mode=at-most"), std::string::npos) << d.rewrite.user_note;

    SpiderflowConf refuse = config("/tmp");
    refuse.refuse_cross_site_loss = true;
    d = decide_submission(opts("gpt3-1.3b", 32), gpus(16), site, refuse);
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("This request does not pay"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("cross_site_loss = refuse"), std::string::npos) << d.message;

    JobOptions at_most = opts("gpt3-1.3b", 32);
    at_most.gpu_mode = GpuCountMode::at_most;
    d = decide_submission(at_most, gpus(16), site, refuse);
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message;
    EXPECT_FALSE(d.rewrite.hold);
    EXPECT_EQ(d.rewrite.nodes * d.rewrite.gpus_per_node, 8);
    EXPECT_NE(d.rewrite.user_note.find("on 8 GPUs, not the 16 asked for"), std::string::npos) << d.rewrite.user_note;

    // A request that pays (no single site, nor fewer GPUs, holds the model) carries no verdict.
    d = decide_submission(opts("llama2-70b", 64), gpus(16), site, refuse);
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message;
    EXPECT_EQ(d.rewrite.user_note.find("does not pay"), std::string::npos) << d.rewrite.user_note;
}

// A topology file of four nodes and the site_state file beside it, as spiderflow.conf names them.
class SubmitSiteCacheTest : public ::testing::Test {
protected:
    void SetUp() override {
        char dir_template[] = "/tmp/sf_site_XXXXXX";
        ASSERT_NE(::mkdtemp(dir_template), nullptr);
        dir = dir_template;
        std::ofstream(dir + "/topo.json") << topology_to_json(*topo);
        cfg.topology = dir + "/topo.json";
        cfg.site_state = dir + "/state.json";
    }
    void TearDown() override { std::system(("rm -rf " + dir).c_str()); }
    void write_state(const SiteState& state) { std::ofstream(dir + "/state.json") << site_state_to_json(state); }

    std::string dir;
    const decltype(cluster_topology(4)) topo = cluster_topology(4);
    SpiderflowConf cfg = config("/tmp");
};

// The cache reads spiderflow.conf's topology= and site_state= files, once per change; a broken
// snapshot is not used (the bare topology is) and the warning says why.
TEST_F(SubmitSiteCacheTest, ReadsTheSnapshotOnceAndFallsBackOnABrokenOne) {
    SiteState state(topo);
    state.set_node_state({"here", "n3"}, NodeState::down);
    write_state(state);
    SubmitSiteCache cache;
    std::string error, warning;
    const auto site = cache.get(cfg, &error, &warning);
    ASSERT_NE(site, nullptr) << error;
    EXPECT_EQ(warning, "");
    EXPECT_EQ(site->usable->clusters[0].nodes[3].gpus, 0) << "n3 is down in the snapshot";
    EXPECT_EQ(cache.get(cfg, &error, &warning), site) << "unchanged files: the same site, nothing re-read";

    {
        std::ofstream(dir + "/state.json") << "{ not json";
    }
    struct timespec later[2] = {{0, UTIME_OMIT}, {2000000000, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, (dir + "/state.json").c_str(), later, 0), 0);
    // The agent's rewrite of a snapshot in use is read on the cache's own thread, and this small
    // one well within the wait the call gives it.
    SiteRead read;
    const auto fallback = cache.get(cfg, &error, &warning, &read);
    ASSERT_NE(fallback, nullptr);
    EXPECT_GT(read.ms, 0);
    EXPECT_TRUE(read.waited);
    EXPECT_NE(fallback, site);
    EXPECT_NE(warning.find("site state not used"), std::string::npos) << warning;
    EXPECT_EQ(fallback->usable->clusters[0].nodes[3].gpus, 8) << "the bare topology: every node counts";

    // The agent's next snapshot, good again, after a broken one: read by the call itself (the
    // broken one is not in use), which says it waited.
    state.set_node_state({"here", "n2"}, NodeState::drained);
    write_state(state);
    struct timespec even_later[2] = {{0, UTIME_OMIT}, {2000000001, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, (dir + "/state.json").c_str(), even_later, 0), 0);
    const auto again = cache.get(cfg, &error, &warning, &read);
    ASSERT_NE(again, nullptr);
    EXPECT_TRUE(read.waited);
    EXPECT_EQ(again->usable->clusters[0].nodes[2].gpus, 0) << "n2 is drained in the new snapshot";

    cfg.site_state = dir + "/missing.json";
    ASSERT_NE(cache.get(cfg, &error, &warning), nullptr);
    EXPECT_NE(warning.find("missing.json"), std::string::npos) << warning;

    // A snapshot the agent stopped refreshing: past site_state_max_age, this cluster alone.
    {
        std::ofstream(dir + "/old.json") << site_state_to_json(state);
    }
    struct timespec old_times[2] = {{0, UTIME_OMIT}, {std::time(nullptr) - 1000, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, (dir + "/old.json").c_str(), old_times, 0), 0);
    cfg.site_state = dir + "/old.json";
    auto aged = cache.get(cfg, &error, &warning);
    ASSERT_NE(aged, nullptr);
    EXPECT_NE(warning.find("is spiderflow-agent running?"), std::string::npos) << warning;
    EXPECT_FALSE(aged->observed);
    EXPECT_EQ(aged->usable->clusters[0].nodes[3].gpus, 8);
    cfg.site_state_max_age_s = 0;   // any age
    aged = cache.get(cfg, &error, &warning);
    EXPECT_EQ(warning, "");
    EXPECT_TRUE(aged->observed);
    EXPECT_EQ(aged->usable->clusters[0].nodes[3].gpus, 0);

    // A FIFO is never opened (open() would block slurmctld until a writer came).
    ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0600), 0);
    cfg.site_state = dir + "/fifo";
    ASSERT_NE(cache.get(cfg, &error, &warning), nullptr);
    EXPECT_NE(warning.find("not a regular file"), std::string::npos) << warning;
}

// A refresh read longer than the call's wait (a 1,024-cluster cache on a busy machine): the call
// and those after it plan on the snapshot held, waiting for nothing, until the read is done.
TEST_F(SubmitSiteCacheTest, ARefreshIsReadBesideTheSubmitPath) {
    SiteState state(topo);
    write_state(state);
    SubmitSiteCache cache(0);   // no wait: every refresh is read beside
    std::string error, warning;
    SiteRead read;
    const auto site = cache.get(cfg, &error, &warning, &read);
    ASSERT_NE(site, nullptr) << error;
    EXPECT_TRUE(read.waited) << "the first read is the call's own";
    ASSERT_TRUE(site->observed) << warning;
    state.set_node_state({"here", "n1"}, NodeState::drained);
    write_state(state);
    struct timespec later[2] = {{0, UTIME_OMIT}, {2000000000, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, (dir + "/state.json").c_str(), later, 0), 0);
    EXPECT_EQ(cache.get(cfg, &error, &warning, &read), site) << "the refresh is not read yet: the held site";
    EXPECT_EQ(read.ms, 0);
    cache.join();
    const auto refreshed = cache.get(cfg, &error, &warning, &read);
    ASSERT_NE(refreshed, site);
    EXPECT_GT(read.ms, 0);
    EXPECT_FALSE(read.waited);
    EXPECT_EQ(refreshed->usable->clusters[0].nodes[1].gpus, 0) << "n1 is drained in the refresh";
    EXPECT_EQ(cache.get(cfg, &error, &warning, &read), refreshed);
    EXPECT_EQ(read.ms, 0);
}

// sbatch --llm-sync=diloco --llm-inner-steps=... reaches the plan the job carries and the line
// the user reads; a DiLoCo setting without --llm-sync=diloco is rejected, naming sbatch's option.
TEST(SubmitPlanner, DilocoOptionsReachThePlan) {
    const auto topo = cluster(4);
    JobOptions o = opts("llama3-8b", 64);
    o.sync = "diloco";
    o.inner_steps = 250;
    o.outer_precision = "int8";
    const auto d = decide_submission(o, gpus(16), topo, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message;
    std::map<std::string, std::string> env(d.rewrite.job_env.begin(), d.rewrite.job_env.end());
    const Plan plan = plan_from_json(decode_plan_text(env.at(env::kPlanData)), "plan");
    EXPECT_TRUE(plan.job.sync.diloco());
    EXPECT_EQ(plan.job.sync.inner_steps, 250);
    EXPECT_EQ(plan.job.sync.outer_precision, OuterPrecision::int8);
    EXPECT_NE(d.rewrite.user_note.find("DiLoCo: every 250 steps"), std::string::npos) << d.rewrite.user_note;

    // The same spec synchronous: a different cache entry, a synchronous plan.
    const auto s = decide_submission(opts("llama3-8b", 64), gpus(16), topo, config("/tmp"));
    ASSERT_EQ(s.outcome, Outcome::rewrite);
    std::map<std::string, std::string> senv(s.rewrite.job_env.begin(), s.rewrite.job_env.end());
    EXPECT_FALSE(plan_from_json(decode_plan_text(senv.at(env::kPlanData)), "plan").job.sync.diloco());
    EXPECT_EQ(s.rewrite.user_note.find("DiLoCo"), std::string::npos);

    JobOptions bad = opts("llama3-8b", 64);
    bad.inner_steps = 250;
    const auto r = decide_submission(bad, gpus(16), topo, config("/tmp"));
    EXPECT_EQ(r.outcome, Outcome::reject);
    EXPECT_NE(r.message.find("--llm-inner-steps"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("--llm-sync diloco"), std::string::npos) << r.message;
}

