// A plan beside a layout the user gives (`spiderflow plan --compare-with`): both priced by one
// cost model, the ratio the right way round, and a layout that does not fit said so.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "common/cost/cost_model.h"
#include "common/plan/layout_file.h"
#include "common/plan/plan_json.h"
#include "common/planner/layout_compare.h"
#include "tests/unit/common/planner/fixtures.h"

using namespace spiderflow;

namespace {

JobSpec job_of(const std::string& model, int global_batch) {
    return sftest::request(model, global_batch, 0).job;
}

Plan layout(const std::string& text, const Topology& topo, const JobSpec& job) {
    return plan_from_layout(text, "layout.json", topo, job);
}

// tp 8, dp 2: stage 0 in east, stage 1 in west, the pipeline over the 1 Gbit/s link.
const char* kAcross = R"({"schema": "spiderflow-layout", "version": 1, "tp": 8, "dp": 2,
    "stages": [{"clusters": ["east"]}, {"clusters": ["west"]}]})";
// tp 8, dp 4, one stage: all of east.
const char* kInEast = R"({"schema": "spiderflow-layout", "version": 1, "tp": 8, "dp": 4,
    "stages": [{"clusters": ["east"]}]})";

}  // namespace

TEST(LayoutCompare, PricesTheLayoutWithThePlansModelAndRatesThePlanOverIt) {
    const Topology topo = sftest::two_sites(1);
    const CostModel cost(topo, Catalog::builtin(), CostOptions{});
    const JobSpec job = job_of("llama3-8b", 64);
    Plan chosen = layout(kInEast, topo, job);
    chosen.prediction = cost.estimate(chosen);
    const Plan given = layout(kAcross, topo, job);
    const Prediction alone = cost.estimate(given);
    ASSERT_TRUE(alone.feasible) << alone.infeasible_reason;
    ASSERT_TRUE(chosen.prediction.feasible) << chosen.prediction.infeasible_reason;

    const LayoutComparison c = compare_with_layout(chosen, given, cost, "mine.json");
    EXPECT_DOUBLE_EQ(c.given.prediction.iteration_s, alone.iteration_s);
    EXPECT_DOUBLE_EQ(c.speedup, alone.iteration_s / chosen.prediction.iteration_s);
    EXPECT_GT(c.speedup, 1);  // a pipeline over 1 Gbit/s against one site
    EXPECT_DOUBLE_EQ(c.mfu_gain, chosen.prediction.mfu - alone.mfu);

    const nlohmann::json j = nlohmann::json::parse(layout_comparison_json(c, topo));
    EXPECT_EQ(j["file"], "mine.json");
    EXPECT_EQ(j["gpus"], 32);
    EXPECT_EQ(j["clusters"], nlohmann::json({"east", "west"}));
    EXPECT_EQ(j["layers_per_stage"], nlohmann::json({16, 16}));
    EXPECT_TRUE(j["feasible"].get<bool>());
    EXPECT_DOUBLE_EQ(j["speedup"].get<double>(), c.speedup);
    EXPECT_DOUBLE_EQ(j["iteration_s"].get<double>(), alone.iteration_s);

    const std::string text = layout_comparison_text(c, chosen, topo);
    EXPECT_NE(text.find("Compared with mine.json (tp 8 pp 2 dp 2"), std::string::npos) << text;
    EXPECT_NE(text.find("this plan is "), std::string::npos) << text;

    // The other way round the given layout is the faster one, and the text says so.
    Plan slow = given;
    slow.prediction = alone;
    const LayoutComparison back = compare_with_layout(slow, chosen, cost, "east.json");
    EXPECT_LT(back.speedup, 1);
    EXPECT_NE(layout_comparison_text(back, slow, topo).find("the given layout is "), std::string::npos);
}

// `estimate --plan` of a plan written from a layout prices exactly what `estimate --layout`
// priced, and a plan carrying "compared_with" still reads.
TEST(LayoutCompare, ALayoutsPlanFileRepricesExactly) {
    const Topology topo = sftest::two_sites(1);
    const CostModel cost(topo, Catalog::builtin(), CostOptions{});
    Plan p = layout(kAcross, topo, job_of("llama3-8b", 64));
    p.job.recompute = Recompute::selective;
    p.job.sequence_parallel = true;
    p.prediction = cost.estimate(p);
    nlohmann::ordered_json written = nlohmann::ordered_json::parse(plan_to_json(p, topo));
    written["compared_with"] = nlohmann::ordered_json::parse(
        layout_comparison_json(compare_with_layout(p, p, cost, "same.json"), topo));
    const Plan back = plan_from_json(written.dump(), "plan.json", &topo);
    EXPECT_DOUBLE_EQ(cost.estimate(back).iteration_s, p.prediction.iteration_s);
}

TEST(LayoutCompare, ALayoutThatDoesNotFitIsSaidSoWithoutARatio) {
    const Topology topo = sftest::two_sites(1);
    const CostModel cost(topo, Catalog::builtin(), CostOptions{});
    const JobSpec job = job_of("llama3-70b", 8);
    Plan chosen = layout(kInEast, topo, job);
    chosen.prediction = cost.estimate(chosen);
    const Plan one_gpu = layout(R"({"schema": "spiderflow-layout", "version": 1, "tp": 1, "dp": 1,
        "stages": [{"nodes": ["east-n0"]}]})", topo, job);
    const LayoutComparison c = compare_with_layout(chosen, one_gpu, cost, "one.json");
    ASSERT_FALSE(c.given.prediction.feasible);
    EXPECT_EQ(c.speedup, 0);
    const nlohmann::json j = nlohmann::json::parse(layout_comparison_json(c, topo));
    EXPECT_FALSE(j["feasible"].get<bool>());
    EXPECT_FALSE(j["infeasible_reason"].get<std::string>().empty());
    EXPECT_FALSE(j.contains("speedup"));
    EXPECT_NE(layout_comparison_text(c, chosen, topo).find("it does not fit: "), std::string::npos);
}
