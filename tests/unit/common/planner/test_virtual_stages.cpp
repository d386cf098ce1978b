// The interleaved schedule as a planner choice: taken where a pipeline inside one site gains,
// never across a WAN link, never where Megatron-LM cannot run it.
#include <gtest/gtest.h>

#include <string>

#include "common/cost/cost_model.h"
#include "common/plan/sequential_layout.h"
#include "common/planner/plan_job.h"
#include "common/planner/virtual_stages.h"
#include "fixtures.h"

using namespace sftest;

namespace {

Topology one_site(int nodes) {
    Topology t;
    t.name = "one-site";
    t.clusters.push_back(make_cluster("east", {{"A100-80GB", nodes}}));
    t.finalize("one-site");
    return t;
}

// llama3-8b (32 layers) as tp 8, pp 4, dp 1: 8 layers a stage, 16 micro-batches of 1.
Plan pipeline(const Topology& t, int global_batch = 16) {
    Plan p = make_sequential_plan(t, request("llama3-8b", global_batch, 32).job, 8, 4, 1, 1);
    return p;
}

}  // namespace

TEST(VirtualStages, MegatronsRulesForInterleaving) {
    const Topology t = one_site(4);
    Plan p = pipeline(t);
    EXPECT_EQ(virtual_stages_problem(p, 1), "");
    EXPECT_EQ(virtual_stages_problem(p, 2), "");
    EXPECT_EQ(virtual_stages_problem(p, 8), "");
    EXPECT_NE(virtual_stages_problem(p, 3).find("do not divide a stage's 8 layers"), std::string::npos);
    EXPECT_NE(virtual_stages_problem(p, 0).find("must be >= 1"), std::string::npos);
    p.num_micro_batches = 6;
    EXPECT_NE(virtual_stages_problem(p, 2).find("multiple of pp (4)"), std::string::npos);
    p.num_micro_batches = 16;
    p.layers_per_stage = {7, 9, 8, 8};
    EXPECT_NE(virtual_stages_problem(p, 2).find("split evenly"), std::string::npos);
    const Plan flat = make_sequential_plan(t, request("llama3-8b", 16, 32).job, 8, 1, 4, 1);
    EXPECT_NE(virtual_stages_problem(flat, 2).find("need a pipeline"), std::string::npos);
}

TEST(VirtualStages, APipelineInsideOneSiteIsInterleavedWhenItPredictsBetter) {
    const Topology t = one_site(4);
    const CostModel cost(t, Catalog::builtin());
    Plan p = pipeline(t);
    p.prediction = cost.estimate(p);
    const double plain = p.prediction.iteration_s;
    const std::string note = choose_virtual_stages(p, Objective::iteration_time, cost);
    ASSERT_GT(p.virtual_stages, 1) << "plain 1F1B kept";
    EXPECT_EQ(virtual_stages_problem(p, p.virtual_stages), "");
    EXPECT_LT(p.prediction.iteration_s, plain);
    EXPECT_LT(p.prediction.bubble_s, cost.estimate(pipeline(t)).bubble_s);
    EXPECT_NE(note.find("interleaved 1F1B with " + std::to_string(p.virtual_stages) + " model chunks"),
              std::string::npos)
        << note;
}

TEST(VirtualStages, NotAcrossAWanLinkNorWhereMegatronCannotNorForDiLoCo) {
    // The pipeline's middle boundary crosses the WAN: plain 1F1B stays.
    const Topology two = two_sites();
    const CostModel wan(two, Catalog::builtin());
    Plan crossing = make_sequential_plan(two, request("llama3-8b", 16, 64).job, 8, 8, 1, 1);
    crossing.prediction = wan.estimate(crossing);
    ASSERT_NE(crossing.cells.front().cluster, crossing.cells.back().cluster);
    EXPECT_EQ(choose_virtual_stages(crossing, Objective::iteration_time, wan), "");
    EXPECT_EQ(crossing.virtual_stages, 1);

    const Topology one = one_site(4);
    const CostModel cost(one, Catalog::builtin());
    Plan odd = pipeline(one, 6);  // 6 micro-batches on 4 stages: Megatron refuses to interleave
    odd.prediction = cost.estimate(odd);
    EXPECT_EQ(choose_virtual_stages(odd, Objective::iteration_time, cost), "");
    EXPECT_EQ(odd.virtual_stages, 1);

    Plan diloco = pipeline(one);
    diloco.job.sync.mode = SyncMode::diloco;
    diloco.prediction = cost.estimate(diloco);
    EXPECT_EQ(choose_virtual_stages(diloco, Objective::iteration_time, cost), "");
}

// A short pipeline run (8 micro-batches on 4 stages: a bubble of 3/8 of the stage time) gains
// from interleaving even on the even split it needs. (With many micro-batches the search's uneven
// split, which unloads the logits' stage, often beats an even interleaved one: then it stays.)
TEST(VirtualStages, PlanJobChoosesItForTheLayoutItFound) {
    const Topology t = one_site(4);
    const CostModel cost(t, Catalog::builtin());
    PlanRequest r = request("llama3-8b", 8, 32);
    r.tp = 8;
    r.pp = 4;
    r.dp = 1;
    r.micro_batch = 1;
    const PlanResult got = plan_job(*make_planner("spinsearch"), r, cost);
    EXPECT_GT(got.plan.virtual_stages, 1);
    EXPECT_NE(got.note.find("interleaved 1F1B"), std::string::npos) << got.note;
    EXPECT_TRUE(got.plan.prediction.feasible);
}
