// Each kind of traffic on the route that suits it: pipeline messages take the fastest route, a
// DP all-reduce of gigabytes the widest, when a cluster pair's two routes differ.
#include <gtest/gtest.h>

#include "common/cost/cost_model.h"
#include "common/plan/plan_routes.h"
#include "common/plan/sequential_layout.h"
#include "tests/unit/common/cost/cost_fixture.h"

using namespace spiderflow;
using sftest::make_topology;

namespace {

const Catalog& cat() { return Catalog::builtin(); }

Topology triangle(bool direct, bool detour) { return sftest::detour_triangle(direct, detour); }

JobSpec job(const char* model, int batch) { return sftest::job_of(*cat().model(model), batch, 4096, Recompute::full); }

}  // namespace

TEST(Routes, PipelineMessagesTakeTheFastestRoute) {
    const Topology both = triangle(true, true), direct = triangle(true, false);
    ASSERT_EQ(both.path(0, 1).hops, 2);  // the widest route detours
    const Plan plan = make_sequential_plan(both, job("llama3-8b", 8), 8, 2, 1, 1);
    ASSERT_EQ(plan.cell(0, 0).cluster, 0);
    ASSERT_EQ(plan.cell(1, 0).cluster, 1);
    EXPECT_EQ(pp_route(both, plan, 0, 1), RouteKind::fastest);
    const Prediction pb = CostModel(both, cat()).estimate(plan);
    const Prediction pd = CostModel(direct, cat()).estimate(plan);
    ASSERT_TRUE(pb.feasible && pd.feasible);
    EXPECT_DOUBLE_EQ(pb.pp_comm_s, pd.pp_comm_s);
    EXPECT_DOUBLE_EQ(pb.bubble_s, pd.bubble_s);
}

TEST(Routes, AllReduceOfGigabytesTakesTheWidestRoute) {
    const Topology both = triangle(true, true), detour = triangle(false, true);
    // One replica in a, one in b: a two-member ring over the pair, 16 GB of llama3-8b gradients.
    const Plan plan = make_sequential_plan(both, job("llama3-8b", 16), 8, 1, 2, 1);
    ASSERT_NE(plan.cell(0, 0).cluster, plan.cell(0, 1).cluster);
    EXPECT_EQ(dp_route(both, plan, 0, 2, 0, 1), RouteKind::widest);
    const Prediction pb = CostModel(both, cat()).estimate(plan);
    const Prediction pw = CostModel(detour, cat()).estimate(plan);
    ASSERT_TRUE(pb.feasible && pw.feasible);
    EXPECT_DOUBLE_EQ(pb.dp_comm_s, pw.dp_comm_s);
    // And it is quicker than forcing it onto the direct link.
    const Prediction pd = CostModel(triangle(true, false), cat()).estimate(plan);
    EXPECT_LT(pb.dp_comm_s, pd.dp_comm_s);
}
