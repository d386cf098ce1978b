// plan_job: the distributed optimizer and activation recomputation as the planner's decisions when
// the job leaves them open.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/cost/cost_model.h"
#include "common/model/job_spec.h"
#include "common/planner/plan_job.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "fixtures.h"
#include "tests/unit/common/cost/cost_fixture.h"

using namespace sftest;

namespace {

std::string shipped(const std::string& rel) {
    const char* dir = std::getenv("SF_SRCDIR");
    return std::string(dir && *dir ? dir : ".") + "/" + rel;
}

// The README's quickstart: llama3-70b on worldwide-8 at 256 GPUs, batch 1024, seq 4096.
PlanRequest quickstart(const std::string& recompute) {
    PlanRequest r;
    r.job = parse_job_spec(R"({"model": "llama3-70b", "global_batch": 1024, "seq_len": 4096, "gpus": 256)" +
                               (recompute.empty() ? std::string() : ", \"recompute\": " + recompute) + "}",
                           "job spec", Catalog::builtin());
    return r;
}

// A policy that only plans with recompute on and records what it was given.
class NeedsRecompute : public PlannerPolicy {
public:
    explicit NeedsRecompute(double sleep_s) : sleep_s_(sleep_s) {}
    std::string name() const override { return "needs-recompute"; }
    PlanResult plan(const PlanRequest& r, const CostModel&) const override {
        calls.push_back(r);
        std::this_thread::sleep_for(std::chrono::duration<double>(sleep_s_));
        if (!r.job.recomputes()) throw InfeasibleError("does not fit memory");
        PlanResult out;
        out.plan.job = r.job;
        return out;
    }
    mutable std::vector<PlanRequest> calls;

private:
    double sleep_s_;
};

}  // namespace

TEST(PlanJob, QuickstartTurnsRecomputeOnWhenTheSpecLeavesItOpen) {
    const Topology t = read_topology(shipped("contrib/topologies/worldwide-8.json"));
    const CostModel cost(t, Catalog::builtin());
    const auto planner = make_planner("spinsearch");
    const PlanRequest open = quickstart("");
    ASSERT_FALSE(open.job.recompute_stated);
    // As today without the retry: nothing Megatron-LM can launch fits memory.
    EXPECT_THROW(planner->plan(open, cost), InfeasibleError);

    const PlanResult r = plan_job(*planner, open, cost);
    EXPECT_TRUE(r.plan.job.recomputes());
    EXPECT_TRUE(r.plan.prediction.feasible);
    EXPECT_EQ(r.plan.world_size(), 256);
    EXPECT_NE(r.note.find(std::string(to_string(r.plan.job.recompute)) + " activation recomputation ("), std::string::npos)
        << r.note;
    EXPECT_NE(r.note.find("without recomputation: "), std::string::npos) << r.note;

    // Stated, it is kept: none without sequence parallelism stays infeasible; none with it fits.
    const PlanRequest off = quickstart("\"none\", \"sequence_parallel\": false");
    ASSERT_TRUE(off.job.recompute_stated);
    EXPECT_THROW(plan_job(*planner, off, cost), InfeasibleError);
    EXPECT_EQ(plan_job(*planner, quickstart("\"none\""), cost).plan.job.recompute, Recompute::none);
    const PlanResult on = plan_job(*planner, quickstart("\"full\""), cost);
    EXPECT_EQ(on.plan.job.recompute, Recompute::full);
    EXPECT_EQ(on.note.find("activation recomputation ("), std::string::npos) << on.note;
}

TEST(PlanJob, ASmallModelThatFitsKeepsRecomputeOff) {
    const Topology t = read_topology(shipped("contrib/topologies/worldwide-8.json"));
    const CostModel cost(t, Catalog::builtin());
    PlanRequest r;
    r.job = parse_job_spec(R"({"model": "gpt3-1.3b", "global_batch": 512, "seq_len": 2048, "gpus": 64})", "job spec",
                           Catalog::builtin());
    const PlanResult p = plan_job(*make_planner("spinsearch"), r, cost);
    EXPECT_EQ(p.plan.job.recompute, Recompute::none);
    EXPECT_EQ(p.note.find("recomputation"), std::string::npos) << p.note;
}

TEST(PlanJob, EveryAttemptSharesTheTimeLimit) {
    const Topology t = two_sites();
    const CostModel cost(t, Catalog::builtin());
    PlanRequest r = request("llama3-8b", 64, 16);
    r.time_limit_s = 10;
    const NeedsRecompute policy(0.05);
    const PlanResult p = plan_job(policy, r, cost);
    ASSERT_EQ(policy.calls.size(), 3u);
    EXPECT_EQ(policy.calls[0].job.recompute, Recompute::none);
    EXPECT_NEAR(policy.calls[0].time_limit_s, 10.0 / 3, 0.01);
    EXPECT_EQ(policy.calls[1].job.recompute, Recompute::selective);
    EXPECT_EQ(policy.calls[2].job.recompute, Recompute::full);
    // Each later attempt gets an equal share of what is left: half, then all of the rest.
    for (int k : {1, 2}) {
        EXPECT_GT(policy.calls[k].time_limit_s, 0);
        EXPECT_LE(policy.calls[k].time_limit_s, 10 - 0.05 * k);
    }
    EXPECT_GE(policy.calls[1].time_limit_s, 10.0 / 3);
    EXPECT_GE(policy.calls[2].time_limit_s, policy.calls[1].time_limit_s);
    // Selective and full predict alike here: the one recomputing less is kept.
    EXPECT_EQ(p.plan.job.recompute, Recompute::selective);

    // The first attempt spent it all: no second one, the first reason stands.
    r.time_limit_s = 0.02;
    const NeedsRecompute slow(0.05);
    try {
        plan_job(slow, r, cost);
        ADD_FAILURE() << "planned without time left";
    } catch (const InfeasibleError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("does not fit memory (the time limit left no time", 0), 0u) << e.what();
    }
    EXPECT_EQ(slow.calls.size(), 1u);

    // No limit given: each attempt gets the policy's default.
    r.time_limit_s = 0;
    const NeedsRecompute quick(0);
    plan_job(quick, r, cost);
    ASSERT_EQ(quick.calls.size(), 3u);
    EXPECT_EQ(quick.calls[1].time_limit_s, 0);
    EXPECT_EQ(quick.calls[2].time_limit_s, 0);
}

// With the optimizer states sharded, llama3-70b just fits two-datacenters-dedicated without
// recomputation, on a layout with heavy tensor parallelism; recomputation lets a better one fit.
TEST(PlanJob, RecomputeIsWeighedNotALastResort) {
    const Topology t = read_topology(shipped("contrib/topologies/two-datacenters-dedicated.json"));
    const CostModel cost(t, Catalog::builtin());
    const auto planner = make_planner("spinsearch");
    PlanRequest r = request("llama3-70b", 1024, 256, 4096);
    const PlanResult chosen = plan_job(*planner, r, cost);
    r.job.recompute_stated = true;  // off, as stated
    const PlanResult without = plan_job(*planner, r, cost);
    ASSERT_TRUE(without.plan.prediction.feasible);
    EXPECT_TRUE(chosen.plan.job.recomputes());
    EXPECT_LT(chosen.plan.prediction.iteration_s, without.plan.prediction.iteration_s);
    char without_s[32];
    std::snprintf(without_s, sizeof without_s, "%.1f s", without.plan.prediction.iteration_s);
    EXPECT_NE(chosen.note.find(std::string("without recomputation: ") + without_s), std::string::npos) << chosen.note;
}

TEST(PlanJob, AStatedChoiceIsPlannedOnce) {
    const Topology t = two_sites();
    const CostModel cost(t, Catalog::builtin());
    PlanRequest r = request("llama3-8b", 64, 16);
    r.job.recompute_stated = true;
    const NeedsRecompute policy(0);
    EXPECT_THROW(plan_job(policy, r, cost), InfeasibleError);
    EXPECT_EQ(policy.calls.size(), 1u);
}

TEST(PlanJob, TheDistributedOptimizerIsOnWheneverThePlanHasReplicas) {
    const Topology t = read_topology(shipped("contrib/topologies/worldwide-8.json"));
    const CostModel cost(t, Catalog::builtin());
    const auto planner = make_planner("spinsearch");
    auto spec = [](const std::string& zero1) {
        PlanRequest r;
        r.job = parse_job_spec(R"({"model": "gpt3-1.3b", "global_batch": 512, "seq_len": 2048, "gpus": 64)" +
                                   (zero1.empty() ? std::string() : ", \"zero1\": " + zero1) + "}",
                               "job spec", Catalog::builtin());
        return r;
    };
    const PlanResult open = plan_job(*planner, spec(""), cost);
    ASSERT_GT(open.plan.dp, 1);
    EXPECT_TRUE(open.plan.job.zero1);
    // Stated, it is kept either way.
    const PlanResult off = plan_job(*planner, spec("false"), cost);
    EXPECT_FALSE(off.plan.job.zero1);
    EXPECT_TRUE(plan_job(*planner, spec("true"), cost).plan.job.zero1);
    // The same layout predicts no slower with the optimizer states sharded.
    Plan unsharded = open.plan;
    unsharded.job.zero1 = false;
    EXPECT_LE(open.plan.prediction.iteration_s, cost.estimate(unsharded).iteration_s);

    // The search sees it on; a plan of one replica has nothing to shard.
    const NeedsRecompute policy(0);
    PlanRequest r = request("llama3-8b", 64, 16);
    r.job.recompute_stated = true;
    r.job.recompute = Recompute::full;
    const PlanResult one = plan_job(policy, r, cost);
    ASSERT_EQ(policy.calls.size(), 1u);
    EXPECT_TRUE(policy.calls[0].job.zero1);
    EXPECT_EQ(one.plan.dp, 1);
    EXPECT_FALSE(one.plan.job.zero1);
}

// The issue's case: llama3-405b fit no layout on any benchmark federation, 1,024 GPUs included,
// with the optimizer states replicated on every data-parallel rank.
TEST(PlanJob, Llama405bFitsOnceTheOptimizerStatesAreSharded) {
    const Topology t = read_topology(shipped("contrib/topologies/worldwide-8.json"));
    const CostModel cost(t, Catalog::builtin());
    const auto planner = make_planner("spinsearch");
    PlanRequest r = request("llama3-405b", 1024, 256);
    r.time_limit_s = 30;
    const PlanResult p = plan_job(*planner, r, cost);
    EXPECT_TRUE(p.plan.prediction.feasible) << p.plan.prediction.infeasible_reason;
    EXPECT_EQ(p.plan.world_size(), 256);
    EXPECT_TRUE(p.plan.job.zero1 || p.plan.dp == 1);
}

TEST(PlanJob, WhenRecomputeDoesNotHelpEitherTheErrorSaysItWasTried) {
    const Topology t = read_topology(shipped("contrib/topologies/worldwide-8.json"));
    const CostModel cost(t, Catalog::builtin());
    PlanRequest r;
    r.job = parse_job_spec(R"({"model": "llama3-405b", "global_batch": 1024, "seq_len": 4096, "gpus": 32})",
                           "job spec", Catalog::builtin());
    try {
        plan_job(*make_planner("spinsearch"), r, cost);
        ADD_FAILURE() << "405B planned on 32 GPUs";
    } catch (const InfeasibleError& e) {
        EXPECT_NE(std::string(e.what()).find("with activation recomputation on"), std::string::npos) << e.what();
    }
}

// sbatch's --llm-objective and the CLI's --objective read the same words.
TEST(Objective, OneReaderForBothSpellings) {
    EXPECT_EQ(objective_from_string("time", "t", "o"), Objective::iteration_time);
    EXPECT_EQ(objective_from_string("iteration_time", "t", "o"), Objective::iteration_time);
    EXPECT_EQ(objective_from_string("throughput", "t", "o"), Objective::throughput_per_gpu);
    EXPECT_EQ(objective_from_string(to_string(Objective::throughput_per_gpu), "t", "o"), Objective::throughput_per_gpu);
    EXPECT_THROW(objective_from_string("speed", "t", "o"), InputError);
}

namespace {

// What plan_job chose before selective recomputation and sequence parallelism were searched:
// the better of no recomputation and full, sequence parallelism off.
PlanResult old_default(const PlannerPolicy& planner, PlanRequest r, const CostModel& cost) {
    r.job.sequence_parallel_stated = true;
    r.job.recompute_stated = true;
    std::optional<PlanResult> best;
    for (Recompute how : {Recompute::none, Recompute::full}) {
        r.job.recompute = how;
        try {
            PlanResult p = plan_job(planner, r, cost);
            if (!best || p.plan.prediction.iteration_s < best->plan.prediction.iteration_s) best = p;
        } catch (const InfeasibleError&) {
        }
    }
    if (!best) throw InfeasibleError("no layout either way");
    return *best;
}

}  // namespace

// The issue's case: llama3-70b on the shipped two-data-centre topology. Left open, the planner
// finds selective recomputation with sequence parallelism, at least 1.2x the MFU of the old
// default (measured: 35.1% -> 43.6% by hand), and says what the others cost.
TEST(PlanJob, SelectiveRecomputationWithSequenceParallelismIsSearched) {
    const Topology t = read_topology(shipped("contrib/topologies/two-datacenters-dedicated.json"));
    const CostModel cost(t, Catalog::builtin());
    const auto planner = make_planner("spinsearch");
    const PlanRequest r = request("llama3-70b", 1024, 256, 4096);
    const PlanResult chosen = plan_job(*planner, r, cost);
    const PlanResult before = old_default(*planner, r, cost);
    EXPECT_EQ(chosen.plan.job.recompute, Recompute::selective) << chosen.note;
    ASSERT_GT(chosen.plan.tp, 1);
    EXPECT_TRUE(chosen.plan.job.sequence_parallel);
    EXPECT_GE(chosen.plan.prediction.mfu, 1.2 * before.plan.prediction.mfu)
        << chosen.plan.prediction.mfu << " against " << before.plan.prediction.mfu;
    EXPECT_NE(chosen.note.find("selective activation recomputation ("), std::string::npos) << chosen.note;
    EXPECT_NE(chosen.note.find("with full: "), std::string::npos) << chosen.note;
}

// Sequence parallelism left open is on wherever tp > 1 and off where there is nothing to split;
// stated, it is kept.
TEST(PlanJob, SequenceParallelismFollowsTensorParallelism) {
    const Topology t = two_sites();
    const CostModel cost(t, Catalog::builtin());
    const auto planner = make_planner("spinsearch");
    PlanRequest r = request("llama3-8b", 64, 16);
    r.tp = 1;
    EXPECT_FALSE(plan_job(*planner, r, cost).plan.job.sequence_parallel);
    r.tp = 4;
    const PlanResult tp4 = plan_job(*planner, r, cost);
    EXPECT_TRUE(tp4.plan.job.sequence_parallel);
    r.job.sequence_parallel_stated = true;   // off, as stated
    const PlanResult off = plan_job(*planner, r, cost);
    EXPECT_FALSE(off.plan.job.sequence_parallel);
    EXPECT_LE(tp4.plan.prediction.max_memory_bytes, off.plan.prediction.max_memory_bytes);
}

// The issue's other case: llama3-405b on 1,024 H100s in one cluster, batch 2048 x 4096 (measured
// by hand before: full recomputation, tp4 pp8 dp32, 35.4% MFU; selective + sequence parallelism
// given by hand, tp8 pp8 dp16, 45.5%).
TEST(PlanJob, Llama405bOnOneClusterChoosesSelectiveWithSequenceParallelism) {
    const Topology t = sftest::make_topology({{"h100", "H100-SXM", 128, 8, 8 * 400}});
    const CostModel cost(t, Catalog::builtin());
    const auto planner = make_planner("spinsearch");
    const PlanRequest r = request("llama3-405b", 2048, 1024, 4096);
    const PlanResult chosen = plan_job(*planner, r, cost);
    const PlanResult before = old_default(*planner, r, cost);
    EXPECT_EQ(chosen.plan.job.recompute, Recompute::selective) << chosen.note;
    EXPECT_TRUE(chosen.plan.job.sequence_parallel);
    EXPECT_GE(chosen.plan.prediction.mfu, 1.2 * before.plan.prediction.mfu)
        << chosen.plan.prediction.mfu << " against " << before.plan.prediction.mfu;
}
