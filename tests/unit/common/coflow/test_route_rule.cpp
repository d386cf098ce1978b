// The one route rule (route_for, applied per kind of traffic by plan_routes.h) holds in every
// place that routes a plan's traffic: the cost model prices each kind on its route, the flow
// simulator sends each kind's flows on it, and the plan's text names it. Clusters a and b are
// joined directly (1.0 Gb/s, 24 ms) and through c (1.1 Gb/s, 2 x 80 ms): a pipeline message
// goes direct; a DP ring edge of gigabytes is more than kDetourMargin quicker through c.
#include <gtest/gtest.h>

#include "common/coflow/llm_traffic.h"
#include "common/cost/cost_model.h"
#include "common/plan/plan_routes.h"
#include "common/plan/plan_text.h"
#include "common/plan/sequential_layout.h"
#include "tests/unit/common/cost/cost_fixture.h"

using namespace spiderflow;

namespace {

Topology triangle(bool direct, bool detour) { return sftest::detour_triangle(direct, detour, 2); }

// tp 8, pp 2, dp 2 with both replicas crossing a-b in opposite directions: pipeline messages and
// the DP ring both cross the pair.
Plan mixed_plan(const Topology& t) {
    const JobSpec job = sftest::job_of(*Catalog::builtin().model("llama3-8b"), 16, 4096, Recompute::none);
    Plan p = make_sequential_plan(t, job, 8, 2, 2, 1);
    p.cell(0, 0) = {0, 0, 0};
    p.cell(1, 0) = {1, 0, 0};
    p.cell(0, 1) = {1, 1, 0};
    p.cell(1, 1) = {0, 1, 0};
    return p;
}

}  // namespace

TEST(RouteRule, OneChoiceInTheCostModelTheFlowSimulatorAndThePlanText) {
    const Topology both = triangle(true, true);
    const Plan plan = mixed_plan(both);
    ASSERT_EQ(both.path(0, 1).hops, 2);   // the widest route detours through c
    const RouteKind pp = pp_route(both, plan, 0, 1), dp = dp_route_between(both, plan, 0, 1);
    EXPECT_EQ(pp, RouteKind::fastest);
    EXPECT_EQ(dp, RouteKind::widest);

    // The cost model: each kind is priced on its route, so taking away the route a kind does not
    // use changes nothing for it.
    const CostModel with_both(both, Catalog::builtin());
    const Topology direct_only = triangle(true, false), detour_only = triangle(false, true);
    const Prediction pb = with_both.estimate(plan);
    const Prediction pd = CostModel(direct_only, Catalog::builtin()).estimate(mixed_plan(direct_only));
    const Prediction pw = CostModel(detour_only, Catalog::builtin()).estimate(mixed_plan(detour_only));
    ASSERT_TRUE(pb.feasible && pd.feasible && pw.feasible) << pb.infeasible_reason;
    EXPECT_DOUBLE_EQ(pb.pp_comm_s, pd.pp_comm_s);   // pipeline messages priced on the direct link
    EXPECT_DOUBLE_EQ(pb.dp_comm_s, pw.dp_comm_s);   // the ring priced on the wider detour
    EXPECT_NE(pb.pp_comm_s, pw.pp_comm_s);
    EXPECT_NE(pb.dp_comm_s, pd.dp_comm_s);

    // The flow simulator: every flow on its kind's route.
    coflow::LlmJobOptions o;
    o.topology = &both;
    const coflow::PeriodicJob job = coflow::build_llm_job(plan, coflow::stage_times_on(plan, both, Catalog::builtin()), o);
    int pp_flows = 0, dp_flows = 0;
    for (const coflow::Task& task : job.tasks) {
        if (task.type != coflow::Task::Type::coflow) continue;
        for (const coflow::FlowSpec& f : task.flows) {
            if (task.kind == coflow::CoflowKind::pp) {
                ++pp_flows;
                EXPECT_TRUE(f.fast_route);
            } else if (task.kind == coflow::CoflowKind::dp) {
                ++dp_flows;
                EXPECT_FALSE(f.fast_route);
            }
        }
    }
    EXPECT_GT(pp_flows, 0);
    EXPECT_GT(dp_flows, 0);

    // The plan's text: the same two routes named.
    const std::string text = plan_to_text(pb.feasible ? [&] { Plan q = plan; q.prediction = pb; return q; }() : plan, both);
    EXPECT_NE(text.find("PP: "), std::string::npos) << text;
    EXPECT_NE(text.find("on the fastest route (direct)"), std::string::npos) << text;
    EXPECT_NE(text.find("on the widest route (via c)"), std::string::npos) << text;
}
