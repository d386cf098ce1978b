// Sync or DiLoCo: the request options that ask for each, planning DiLoCo, and the comparison a
// user sees when allowing both. The plan never switches mode by itself.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/cost/cost_model.h"
#include "common/plan/plan_traffic.h"
#include "common/planner/plan_job.h"
#include "common/planner/request_builder.h"
#include "common/planner/sync_compare.h"
#include "tests/unit/common/planner/fixtures.h"

using namespace spiderflow;

namespace {

RequestOptions llama8b_on_64() {
    RequestOptions o;
    o.model = "llama3-8b";
    o.global_batch = 64;
    o.gpus = 64;
    return o;
}

std::string error_of(const RequestOptions& o) {
    try {
        build_plan_request(o, Catalog::builtin(), OptionNames{}, "spiderflow plan");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(SyncOptions, ModesAndDilocoSettings) {
    RequestOptions o = llama8b_on_64();
    PlanRequest r = build_plan_request(o, Catalog::builtin(), OptionNames{}, "t");
    EXPECT_EQ(r.job.sync.mode, SyncMode::sync);
    EXPECT_FALSE(r.compare_sync_modes);

    o.sync = "diloco";
    o.inner_steps = 250;
    o.outer_precision = "int8";
    o.streaming = true;
    r = build_plan_request(o, Catalog::builtin(), OptionNames{}, "t");
    EXPECT_TRUE(r.job.sync.diloco());
    EXPECT_EQ(r.job.sync.inner_steps, 250);
    EXPECT_EQ(r.job.sync.outer_precision, OuterPrecision::int8);
    EXPECT_TRUE(r.job.sync.streaming);
    EXPECT_FALSE(r.compare_sync_modes);

    o.sync = "either";
    r = build_plan_request(o, Catalog::builtin(), OptionNames{}, "t");
    EXPECT_EQ(r.job.sync.mode, SyncMode::sync);  // either: sync unless the user says diloco
    EXPECT_TRUE(r.compare_sync_modes);
    EXPECT_EQ(r.job.sync.inner_steps, 250);
}

TEST(SyncOptions, BadValuesAndSettingsWithoutDilocoAreErrors) {
    RequestOptions o = llama8b_on_64();
    o.sync = "async";
    EXPECT_NE(error_of(o).find("--sync: unknown sync mode 'async' (sync, diloco or either)"), std::string::npos) << error_of(o);
    o.sync = "";
    o.inner_steps = 50;
    EXPECT_NE(error_of(o).find("--inner-steps: only applies to DiLoCo: add --sync diloco (or either)"), std::string::npos)
        << error_of(o);
    o.inner_steps.reset();
    o.outer_precision = "int8";
    EXPECT_NE(error_of(o).find("--outer-precision: only applies to DiLoCo"), std::string::npos) << error_of(o);
    o.sync = "diloco";
    o.outer_precision = "int4";
    EXPECT_NE(error_of(o).find("--outer-precision"), std::string::npos);
    EXPECT_NE(error_of(o).find("(fp32, bf16 or int8)"), std::string::npos) << error_of(o);
    o.outer_precision = "";
    o.inner_steps = 0;
    EXPECT_NE(error_of(o).find("--inner-steps"), std::string::npos) << error_of(o);
    // sbatch's spelling reaches the message.
    OptionNames sbatch;
    sbatch.sync = "--llm-sync";
    sbatch.inner_steps = "--llm-inner-steps";
    o = llama8b_on_64();
    o.inner_steps = 10;
    try {
        build_plan_request(o, Catalog::builtin(), sbatch, "job options");
        ADD_FAILURE() << "accepted --llm-inner-steps without --llm-sync diloco";
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "--llm-inner-steps");
        EXPECT_NE(std::string(e.what()).find("--llm-sync diloco"), std::string::npos);
    }
}

// Over a 1 Gbit/s link the planner's DiLoCo plan keeps whole replicas at home, never crosses
// the WAN in an inner step, and beats synchronous training by far; over a wide link it does not.
TEST(SyncCompare, BothPlannedSyncKept) {
    const Topology t = sftest::two_sites(1);
    const CostModel cost(t, Catalog::builtin());
    const auto planner = make_planner("spinsearch");
    RequestOptions o = llama8b_on_64();
    o.sync = "either";
    o.outer_precision = "int8";
    const PlanRequest r = build_plan_request(o, Catalog::builtin(), OptionNames{}, "t");
    const PlanResult chosen = plan_job(*planner, r, cost);
    EXPECT_FALSE(chosen.plan.job.sync.diloco());  // never switched silently
    const SyncComparison c = compare_sync_modes(*planner, r, cost, chosen.plan);
    ASSERT_TRUE(c.sync.found && c.diloco.found) << c.sync.why << c.diloco.why;
    EXPECT_TRUE(c.diloco.sync.diloco());
    EXPECT_EQ(c.diloco.sync.outer_precision, OuterPrecision::int8);
    EXPECT_EQ(c.diloco.gpus, 64);
    EXPECT_GT(c.diloco.tokens_per_s, c.sync.tokens_per_s);
    EXPECT_GT(c.diloco.compute_utilisation, 0.5);
    EXPECT_LT(c.diloco.wan_bytes_per_step, c.sync.wan_bytes_per_step / 10);

    const std::string text = sync_comparison_text(c);
    EXPECT_NE(text.find("this plan trains synchronously"), std::string::npos) << text;
    EXPECT_NE(text.find("different optimiser"), std::string::npos) << text;
    EXPECT_NE(text.find("ask for --sync diloco"), std::string::npos) << text;
    const nlohmann::json j = nlohmann::json::parse(sync_comparison_json(c));
    EXPECT_EQ(j["chosen"], "sync");
    EXPECT_EQ(j["diloco"]["inner_steps"], 100);
    EXPECT_EQ(j["diloco"]["outer_precision"], "int8");
    EXPECT_NEAR(j["diloco"]["tokens_per_s"].get<double>(), c.diloco.tokens_per_s, 1e-6 * c.diloco.tokens_per_s);
}

TEST(SyncCompare, DilocoPlanKeepsReplicasAtHome) {
    const Topology t = sftest::two_sites(1);
    const CostModel cost(t, Catalog::builtin());
    PlanRequest r = sftest::request("llama3-8b", 64, 64);
    r.job.sync.mode = SyncMode::diloco;
    const PlanResult got = plan_job(*make_planner("spinsearch"), r, cost);
    ASSERT_TRUE(got.plan.prediction.feasible) << got.plan.prediction.infeasible_reason;
    EXPECT_TRUE(got.plan.job.sync.diloco());
    for (int rep = 0; rep < got.plan.dp; ++rep)
        for (int s = 1; s < got.plan.pp; ++s) EXPECT_EQ(got.plan.cell(s, rep).cluster, got.plan.cell(0, rep).cluster);
    EXPECT_EQ(iteration_wan_bytes(got.plan), 0);
    EXPECT_GT(got.plan.prediction.outer_wan_bytes, 0);
}

// The gain comes from the WAN: over a very wide link DiLoCo gains only what its smaller,
// per-site all-reduces save.
TEST(SyncCompare, GainShrinksWithAWiderLink) {
    auto gain = [](double gbps) {
        const Topology t = sftest::two_sites(gbps);
        const CostModel cost(t, Catalog::builtin());
        const auto planner = make_planner("spinsearch");
        RequestOptions o = llama8b_on_64();
        o.sync = "either";
        const PlanRequest r = build_plan_request(o, Catalog::builtin(), OptionNames{}, "t");
        const SyncComparison c = compare_sync_modes(*planner, r, cost, plan_job(*planner, r, cost).plan);
        EXPECT_TRUE(c.sync.found && c.diloco.found);
        return c.diloco.tokens_per_s / c.sync.tokens_per_s;
    };
    const double thin = gain(1), wide = gain(100000);
    EXPECT_GT(thin, 2.0);
    EXPECT_LT(wide, 1.2);
    EXPECT_GT(wide, 0.99);
}

// A job that fits one site: nothing to average across sites, nothing gained, and said plainly.
TEST(SyncCompare, NoGainInOneSiteIsSaidPlainly) {
    const Topology t = sftest::two_sites(1);
    const CostModel cost(t, Catalog::builtin());
    const auto planner = make_planner("spinsearch");
    RequestOptions o = llama8b_on_64();
    o.gpus = 32;
    o.sync = "either";
    const PlanRequest r = build_plan_request(o, Catalog::builtin(), OptionNames{}, "t");
    const SyncComparison c = compare_sync_modes(*planner, r, cost, plan_job(*planner, r, cost).plan);
    ASSERT_TRUE(c.sync.found && c.diloco.found);
    EXPECT_NEAR(c.diloco.tokens_per_s / c.sync.tokens_per_s, 1.0, 1e-9);
    const std::string text = sync_comparison_text(c);
    EXPECT_NE(text.find("DiLoCo is not faster here (1.00x"), std::string::npos) << text;
    EXPECT_EQ(text.find("ask for --sync diloco"), std::string::npos) << text;
}
