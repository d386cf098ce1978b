// Cross-site shaping (cross_site_shape.cpp): a plan over two clusters made this cluster's part,
// or refused naming why no part could be one Slurm job.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "common/plan/plan.h"
#include "common/plan/plan_parts.h"
#include "services/slurmjob/cross_site_shape.h"
#include "services/slurmjob/plan_summary.h"
#include "services/slurmjob/submit_planner.h"
#include "tests/unit/services/slurmjob/submit_fixture.h"

using namespace spiderflow;
using namespace spiderflow::slurmjob;
using namespace spiderflow::slurmjob::testing;

namespace {

// Two pipeline stages of tp 8 on 16 GPUs: stage 0 on two nodes of "here" (4 GPUs each), stage 1
// on one node of "there" (8 GPUs); ranks 0-7 here, 8-15 there.
struct TwoParts {
    std::shared_ptr<Topology> topology = two_clusters(2, 1);
    Plan plan;
    std::vector<PlanPart> parts;
    TwoParts() {
        plan.tp = 8;
        plan.pp = 2;
        plan.dp = 1;
        parts.push_back({0, "here", {0, 1}, {4, 4}, 8, {0, 1, 2, 3, 4, 5, 6, 7}, 0});
        parts.push_back({1, "there", {0}, {8}, 8, {8, 9, 10, 11, 12, 13, 14, 15}, 8});
    }
    const Cluster& here() const { return topology->clusters[0]; }
    std::optional<Stop> shape(const SlurmRequest& req, SubmitRewrite* r, int cluster = 0,
                              GpuCountMode mode = GpuCountMode::exact) const {
        return shape_cross_site(plan, parts, cluster, topology->clusters[static_cast<size_t>(cluster)], req, mode, r);
    }
};

}  // namespace

// cross_site = yes (the default): a job larger than this cluster is planned over the federation.
// One that fits another cluster alone is sent there; one that needs both keeps this cluster's
// part, held, and names every part for the agent.
TEST(CrossSiteShape, AJobLargerThanTheClusterIsPlannedAcrossTheFederationAndHeld) {
    auto d = decide_submission(opts("llama3-8b", 64), gpus(24), federation(true), config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("runs best on cluster 'there' alone (24 GPUs)"), std::string::npos) << d.message;

    d = decide_submission(opts("llama3-8b", 64), gpus(48), federation(true), config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message;
    const SubmitRewrite& r = d.rewrite;
    EXPECT_TRUE(r.hold);
    ASSERT_EQ(r.parts.size(), 2u);
    int world = 0, here_gpus = 0;
    for (const auto& p : r.parts) {
        world += p.ranks;
        if (p.cluster == "here") here_gpus = p.nodes * p.gpus_per_node;
    }
    EXPECT_EQ(world, 48);
    EXPECT_EQ(r.nodes * r.gpus_per_node, here_gpus);  // this job is the home part only
    EXPECT_EQ(r.num_tasks, here_gpus);
    PlanSummary s;
    ASSERT_TRUE(parse_plan_summary(r.summary, &s)) << r.summary;
    EXPECT_EQ(s.parts.size(), 2u);
    EXPECT_EQ(s.clusters.find("here") != std::string::npos && s.clusters.find("there") != std::string::npos, true) << s.clusters;
    bool marked = false;
    for (const auto& [k, v] : r.job_env) marked = marked || (k == "SPIDERFLOW_XJOB_HOME" && v == "1");
    EXPECT_TRUE(marked);
    EXPECT_NE(r.user_note.find("across 2 clusters"), std::string::npos) << r.user_note;
    EXPECT_NE(r.user_note.find("(this job)"), std::string::npos) << r.user_note;
    // The other part's output file: the job has no id yet, so a placeholder that reads as one and
    // says where the real name comes from, never a literal JOBID.
    EXPECT_NE(r.user_note.find("(there part 0), as ~/spiderflow-here_<job id>-a<attempt>-p<part>.out"), std::string::npos)
        << r.user_note;
    EXPECT_NE(r.user_note.find("`spiderflow jobs here:<job id>` names each file"), std::string::npos) << r.user_note;
    EXPECT_EQ(r.user_note.find("JOBID"), std::string::npos) << r.user_note;

    EXPECT_EQ(s.failure_requeues, 0);  // on_failure = end, the default: the summary says nothing
    EXPECT_EQ(r.user_note.find("SPIDERFLOW_ATTEMPT"), std::string::npos) << r.user_note;

    // --llm-on-failure=requeue: the summary carries the site's bound, and sbatch says what happens.
    JobOptions requeue = opts("llama3-8b", 64);
    requeue.on_failure = "requeue";
    requeue.replan = "any";
    d = decide_submission(requeue, gpus(48), federation(true), config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message;
    ASSERT_TRUE(parse_plan_summary(d.rewrite.summary, &s)) << d.rewrite.summary;
    EXPECT_EQ(s.failure_requeues, 2);
    EXPECT_TRUE(s.replan_any);
    EXPECT_NE(d.rewrite.user_note.find("at most 2 times, with SPIDERFLOW_ATTEMPT=2"), std::string::npos) << d.rewrite.user_note;
    // ... and a site whose default is requeue gives it to a job that does not say.
    SpiderflowConf requeueing = config("/tmp");
    requeueing.requeue_on_failure = true;
    requeueing.failure_requeues = 5;
    d = decide_submission(opts("llama3-8b", 64), gpus(48), federation(true), requeueing);
    ASSERT_TRUE(parse_plan_summary(d.rewrite.summary, &s)) << d.rewrite.summary;
    EXPECT_EQ(s.failure_requeues, 5);
    EXPECT_FALSE(s.replan_any);

    // -N cannot describe a job over two clusters; the user is told to drop it.
    SlurmRequest with_nodes = gpus(48);
    with_nodes.nodes = 6;
    d = decide_submission(opts("llama3-8b", 64), with_nodes, federation(true), config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("drop -N"), std::string::npos) << d.message;

    // Without the agent's snapshot nothing is known of the other cluster: not planned across.
    d = decide_submission(opts("llama3-8b", 64), gpus(48), federation(false), config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("ask for at most 16"), std::string::npos) << d.message;
}

TEST(CrossSiteShape, TheHomePartIsThisJobHeldWithEveryPartNamed) {
    const TwoParts t;
    SubmitRewrite r;
    SlurmRequest req = gpus(16);
    req.gpu_type = "h100";
    ASSERT_FALSE(t.shape(req, &r).has_value());
    EXPECT_EQ(r.nodes, 2);
    EXPECT_EQ(r.gpus_per_node, 4);
    EXPECT_EQ(r.tasks_per_node, 4);
    EXPECT_EQ(r.num_tasks, 8);
    EXPECT_EQ(r.slurm_gpu_type, "h100");
    EXPECT_EQ(r.gpu_type, "H100-SXM");
    EXPECT_TRUE(r.hold);
    ASSERT_EQ(r.parts.size(), 2u);
    EXPECT_EQ(r.parts[0].cluster, "here");
    EXPECT_EQ(r.parts[0].nodes, 2);
    EXPECT_EQ(r.parts[1].cluster, "there");
    EXPECT_EQ(r.parts[1].gpus_per_node, 8);
    EXPECT_EQ(r.parts[1].ranks, 8);

    // Submitted on "there", the same plan makes "there" the home part.
    SubmitRewrite there;
    ASSERT_FALSE(t.shape(gpus(16), &there, 1).has_value());
    EXPECT_EQ(there.nodes, 1);
    EXPECT_EQ(there.num_tasks, 8);
}

// -n as the whole world's tasks, or one per node of every part; anything else is named.
TEST(CrossSiteShape, TasksCountTheWholeWorldOrEveryNode) {
    const TwoParts t;
    SlurmRequest req = gpus(16);
    req.ntasks = 3;   // 3 nodes in all: one launcher per node
    SubmitRewrite r;
    ASSERT_FALSE(t.shape(req, &r).has_value());
    EXPECT_EQ(r.tasks_per_node, 1);
    EXPECT_EQ(r.num_tasks, 2);

    req.ntasks = 16;
    r = {};
    ASSERT_FALSE(t.shape(req, &r).has_value());
    EXPECT_EQ(r.num_tasks, 8);

    req.ntasks = 5;
    const auto stop = t.shape(req, &r);
    ASSERT_TRUE(stop.has_value());
    EXPECT_EQ(stop->kind, RejectKind::tasks);
    EXPECT_NE(stop->message.find("-n 5 does not match the plan's 16 GPUs on 3 nodes; use -n 16 or -n 3"), std::string::npos)
        << stop->message;
}

TEST(CrossSiteShape, PartsNoSlurmJobCouldBeAreRefused) {
    SubmitRewrite r;
    {
        TwoParts t;   // nothing on this cluster
        t.parts.erase(t.parts.begin());
        const auto stop = t.shape(gpus(16), &r);
        ASSERT_TRUE(stop.has_value());
        EXPECT_EQ(stop->kind, RejectKind::no_fit);
        EXPECT_NE(stop->message.find("places this job on there (8 GPUs) and nothing on this cluster 'here'"), std::string::npos)
            << stop->message;
    }
    {
        const TwoParts t;   // another count than the plan's
        const auto stop = t.shape(gpus(24), &r);
        ASSERT_TRUE(stop.has_value());
        EXPECT_EQ(stop->kind, RejectKind::gpus);
        EXPECT_NE(stop->message.find("--gpus=24 but the plan uses 16 GPUs"), std::string::npos) << stop->message;
        EXPECT_FALSE(t.shape(gpus(24), &r, 0, GpuCountMode::at_most).has_value()) << "at most 24: 16 will do";
    }
    {
        TwoParts t;   // 3 GPUs on one node, 5 on the other
        t.parts[0].gpus_per_node = {3, 5};
        const auto stop = t.shape(gpus(16), &r);
        ASSERT_TRUE(stop.has_value());
        EXPECT_EQ(stop->kind, RejectKind::gpus);
        EXPECT_NE(stop->message.find("does not use the same GPUs on every node of 'here'"), std::string::npos) << stop->message;
    }
    {
        const TwoParts t;
        SlurmRequest req = gpus(16);
        req.gpus_per_node = 8;
        const auto stop = t.shape(req, &r);
        ASSERT_TRUE(stop.has_value());
        EXPECT_NE(stop->message.find("8 GPUs per node but the plan uses 4 on 'here'"), std::string::npos) << stop->message;
    }
    {
        TwoParts t;   // replicas spread over sites: no contiguous rank range
        t.parts[1].rank_offset = -1;
        const auto stop = t.shape(gpus(16), &r);
        ASSERT_TRUE(stop.has_value());
        EXPECT_EQ(stop->kind, RejectKind::no_fit);
        EXPECT_NE(stop->message.find("spreads ranks of 'there'"), std::string::npos) << stop->message;
    }
}
