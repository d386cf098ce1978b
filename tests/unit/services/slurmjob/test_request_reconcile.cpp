// Request reconciliation (request_reconcile.cpp): the user's options, the job's Slurm request and
// the cluster as the site state leaves it, made one plan or a refusal naming what disagrees; the
// carried --llm-plan content; the clusters that offer no node now.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "services/launch/launch_contract.h"
#include "common/plan/plan_transport.h"
#include "services/slurmjob/request_reconcile.h"
#include "services/slurmjob/submit_planner.h"
#include "tests/unit/services/slurmjob/submit_fixture.h"

using namespace spiderflow;
using namespace spiderflow::slurmjob;
using namespace spiderflow::slurmjob::testing;

namespace {

// The plan decide_submission carries for llama3-8b on 16 GPUs of cluster(4), as its JSON text.
std::string carried_plan_json(const std::shared_ptr<const SubmitSite>& site, const JobOptions& o) {
    const auto planned = decide_submission(o, gpus(16), site, config("/tmp"));
    EXPECT_EQ(planned.outcome, Outcome::rewrite) << planned.message;
    std::map<std::string, std::string> env(planned.rewrite.job_env.begin(), planned.rewrite.job_env.end());
    return decode_plan_text(env.at(env::kPlanData));
}

}  // namespace

// slurmctld opens no path a user names: --llm-plan's content comes from the user's side.
TEST(RequestReconcile, PlanFileIsNeverOpenedOnlyItsCarriedContentIsUsed) {
    const auto topo = cluster(4);
    const auto planned = decide_submission(opts("llama3-8b", 64), gpus(16), topo, config("/tmp"));
    ASSERT_EQ(planned.outcome, Outcome::rewrite) << planned.message;
    std::map<std::string, std::string> env(planned.rewrite.job_env.begin(), planned.rewrite.job_env.end());
    const std::string plan_json = decode_plan_text(env.at(env::kPlanData));

    JobOptions given;
    given.plan_file = "/etc/shadow";  // named, never read
    auto d = decide_submission(given, gpus(std::nullopt), topo, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("did not arrive"), std::string::npos) << d.message;
    EXPECT_EQ(d.message.find("root:"), std::string::npos);

    given.plan_content = encode_plan_text(plan_json);
    d = decide_submission(given, gpus(std::nullopt), topo, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message;
    EXPECT_EQ(d.rewrite.num_tasks, planned.rewrite.num_tasks);

    given.plan_content = "z1:AAAA";
    d = decide_submission(given, gpus(std::nullopt), topo, config("/tmp"));
    EXPECT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("corrupt"), std::string::npos) << d.message;

    // A plan for 16 GPUs with --gpus=8: both values are named, the plan does not win silently.
    given.plan_content = encode_plan_text(plan_json);
    d = decide_submission(given, gpus(8), topo, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("--gpus=8"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("16 GPUs"), std::string::npos) << d.message;
}

// job_submit plans on the site state: a drained or down node can never start the job, so it
// counts for nothing; busy nodes count (the job queues behind their jobs).
TEST(RequestReconcile, DrainedAndDownNodesAreLeftOutBusyOnesCount) {
    SiteState state(cluster_topology(4));
    state.set_node_state({"here", "n0"}, NodeState::drained, "bad DIMM");
    state.set_node_state({"here", "n1"}, NodeState::down);
    state.allocate("other", {{{"here", "n2"}, 8, 0}}, 0);
    const auto site = make_submit_site(std::make_shared<const SiteState>(state), true);

    auto d = decide_submission(opts("llama3-8b", 64), gpus(16), site, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::rewrite) << d.message << " (n2 is busy but usable, n3 is free)";
    EXPECT_EQ(d.rewrite.nodes, 2);

    d = decide_submission(opts("llama3-8b", 64), gpus(24), site, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_EQ(d.reject_kind, RejectKind::no_fit);
    EXPECT_NE(d.message.find("2 of its 4 nodes are drained or down"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("ask for at most 16"), std::string::npos) << d.message;

    // A node without GPUs at all (a CPU-only node in the topology) is not counted as out.
    auto with_cpu_node = cluster_topology(4);
    with_cpu_node->clusters[0].nodes[3].gpus = 0;
    with_cpu_node->clusters[0].nodes[3].nvlink_domain_size = 0;
    with_cpu_node->finalize("test");
    SiteState cpu_state(with_cpu_node);
    cpu_state.set_node_state({"here", "n0"}, NodeState::drained);
    d = decide_submission(opts("llama3-8b", 64), gpus(24), make_submit_site(std::make_shared<const SiteState>(cpu_state), true),
                          config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("(2 nodes usable; 1 of its 3 nodes are drained or down)"), std::string::npos) << d.message;

    // The bare topology (no snapshot) plans the same request on all four nodes.
    EXPECT_EQ(decide_submission(opts("llama3-8b", 64), gpus(24), cluster(4), config("/tmp")).outcome, Outcome::rewrite);
}

// With the agent's snapshot of a federation and cross_site = no, a request larger than this
// cluster is told what the federation has free; without a snapshot only this cluster is named.
TEST(RequestReconcile, ARequestLargerThanTheClusterHearsWhatTheFederationHasFree) {
    SpiderflowConf cfg = config("/tmp");
    cfg.cross_site = false;
    auto d = decide_submission(opts("llama3-8b", 64), gpus(24), federation(true), cfg);
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("cluster 'here' has 16"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("the federation has 40 free, but this cluster does not plan across sites (cross_site = no"),
              std::string::npos) << d.message;
    d = decide_submission(opts("llama3-8b", 64), gpus(24), federation(false), config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_EQ(d.message.find("federation"), std::string::npos) << d.message;
}

// A plan given with --llm-plan is used as is; a sync option that disagrees with it is named.
TEST(RequestReconcile, PlanFileAndSyncOptionsMustAgree) {
    const auto topo = cluster(4);
    JobOptions o = opts("llama3-8b", 64);
    o.sync = "diloco";
    const auto planned = decide_submission(o, gpus(16), topo, config("/tmp"));
    ASSERT_EQ(planned.outcome, Outcome::rewrite) << planned.message;
    std::map<std::string, std::string> env(planned.rewrite.job_env.begin(), planned.rewrite.job_env.end());
    JobOptions given;
    given.plan_file = "diloco.json";
    given.plan_content = encode_plan_text(decode_plan_text(env.at(env::kPlanData)));
    EXPECT_EQ(decide_submission(given, gpus(16), topo, config("/tmp")).outcome, Outcome::rewrite);
    given.sync = "diloco";
    EXPECT_EQ(decide_submission(given, gpus(16), topo, config("/tmp")).outcome, Outcome::rewrite);
    given.sync = "sync";
    auto d = decide_submission(given, gpus(16), topo, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("--llm-sync=sync but the plan trains with diloco"), std::string::npos) << d.message;
    given.sync = "";
    given.inner_steps = 7;
    d = decide_submission(given, gpus(16), topo, config("/tmp"));
    ASSERT_EQ(d.outcome, Outcome::reject);
    EXPECT_NE(d.message.find("--llm-inner-steps=7 but the plan has 100"), std::string::npos) << d.message;
}

TEST(RequestReconcile, PlanContentIsDecodedValidatedAndKeptAsIs) {
    const auto site = cluster(4);
    JobOptions given;
    given.plan_file = "mine.json";
    Plan plan;
    auto stop = plan_from_content(given, site->state->topology(), &plan);
    ASSERT_TRUE(stop.has_value());
    EXPECT_EQ(stop->outcome, Outcome::reject);
    EXPECT_EQ(stop->message.rfind("spiderflow: bad --llm-plan mine.json: its content did not arrive", 0), 0u) << stop->message;

    given.plan_content = encode_plan_text(carried_plan_json(site, opts("llama3-8b", 64)));
    stop = plan_from_content(given, site->state->topology(), &plan);
    ASSERT_FALSE(stop.has_value()) << stop->message;
    EXPECT_EQ(plan.world_size(), 16);

    // A plan for nodes this cluster lacks is the user's error, named with the field at fault.
    const auto small = cluster(1);
    stop = plan_from_content(given, small->state->topology(), &plan);
    ASSERT_TRUE(stop.has_value());
    EXPECT_EQ(stop->outcome, Outcome::reject);
    EXPECT_EQ(stop->message.rfind("spiderflow: bad --llm-plan mine.json: ", 0), 0u) << stop->message;
}

// A DiLoCo setting given beside a synchronous plan is named, never applied to it.
TEST(RequestReconcile, DilocoSettingsBesideASynchronousPlanAreNamed) {
    const auto site = cluster(4);
    JobOptions given;
    given.plan_file = "sync.json";
    given.plan_content = encode_plan_text(carried_plan_json(site, opts("llama3-8b", 64)));
    Plan plan;
    given.outer_precision = "int8";
    auto stop = plan_from_content(given, site->state->topology(), &plan);
    ASSERT_TRUE(stop.has_value());
    EXPECT_NE(stop->message.find("--llm-outer-precision=int8 but the plan is synchronous"), std::string::npos) << stop->message;
    given.outer_precision.clear();
    given.streaming = true;
    stop = plan_from_content(given, site->state->topology(), &plan);
    ASSERT_TRUE(stop.has_value());
    EXPECT_NE(stop->message.find("--llm-streaming=yes but the plan is synchronous"), std::string::npos) << stop->message;
}

// The job and memory options beside --llm-plan that the plan says otherwise are named, never
// silently dropped (found by hand: --llm-recompute=full beside a selective plan ran selective).
TEST(RequestReconcile, JobAndMemoryOptionsBesideAPlanThatDisagreeAreNamed) {
    const auto site = cluster(4);
    JobOptions given;
    given.plan_file = "p.json";
    given.plan_content = encode_plan_text(carried_plan_json(site, opts("llama3-8b", 64)));
    Plan plan;
    ASSERT_FALSE(plan_from_content(given, site->state->topology(), &plan).has_value());
    const Recompute other = plan.job.recompute == Recompute::full ? Recompute::none : Recompute::full;
    const auto named = [&](JobOptions o) {
        const auto stop = plan_from_content(o, site->state->topology(), &plan);
        return stop ? stop->message : std::string("(accepted)");
    };
    JobOptions o = given;
    o.recompute = other;
    EXPECT_NE(named(o).find(std::string("--llm-recompute=") + to_string(other) + " but the plan has"), std::string::npos)
        << named(o);
    o = given;
    o.sequence_parallel = !plan.job.sequence_parallel;
    EXPECT_NE(named(o).find("--llm-sequence-parallel="), std::string::npos) << named(o);
    o = given;
    o.model = "llama3-70b";
    EXPECT_NE(named(o).find("--llm-model=llama3-70b but the plan trains llama3-8b"), std::string::npos) << named(o);
    o = given;
    o.global_batch = 128;
    EXPECT_NE(named(o).find("--llm-global-batch=128 but the plan's global batch is 64"), std::string::npos) << named(o);
    // Options that agree with the plan are fine.
    o = given;
    o.model = "llama3-8b";
    o.recompute = plan.job.recompute;
    o.sequence_parallel = plan.job.sequence_parallel;
    EXPECT_EQ(named(o), "(accepted)");
}

// Another cluster whose GPU nodes are all drained or down is named with the first one's reason;
// one with a usable node, or this cluster itself, is not.
TEST(RequestReconcile, ClustersOutNamesOnlyOtherClustersWithNoUsableNode) {
    const auto two = two_clusters(2, 2);
    SiteState state(two);
    EXPECT_EQ(clusters_out(*make_submit_site(std::make_shared<const SiteState>(state), true), 0), "");

    state.set_node_state({"there", "n0"}, NodeState::drained, "new DIMMs");
    EXPECT_EQ(clusters_out(*make_submit_site(std::make_shared<const SiteState>(state), true), 0), "")
        << "n1 of 'there' still takes work";

    state.set_node_state({"there", "n1"}, NodeState::down);
    EXPECT_EQ(clusters_out(*make_submit_site(std::make_shared<const SiteState>(state), true), 0),
              "; offering no node now: there (new DIMMs)");
    EXPECT_EQ(clusters_out(*make_submit_site(std::make_shared<const SiteState>(state), true), 1), "")
        << "the asking cluster is never listed";

    state.set_node_state({"here", "n0"}, NodeState::down);
    state.set_node_state({"here", "n1"}, NodeState::down);
    EXPECT_EQ(clusters_out(*make_submit_site(std::make_shared<const SiteState>(state), true), 1), "; offering no node now: here");
}
