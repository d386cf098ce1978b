// plan_problem / Plan::validate: the one definition of a well-formed plan that the JSON reader,
// the cost model, the traffic model and split_by_cluster all apply.
#include <gtest/gtest.h>

#include <string>

#include "common/plan/plan.h"
#include "common/util/errors.h"
#include "tests/unit/common/plan/plan_fixture.h"

namespace spiderflow {
namespace {

using test::cross_plan;
using test::two_sites;

TEST(PlanValidate, AWellFormedPlanHasNoProblem) {
    const Topology t = two_sites();
    EXPECT_TRUE(plan_problem(cross_plan()).empty()) << plan_problem(cross_plan()).message();
    EXPECT_TRUE(plan_problem(cross_plan(), &t).empty()) << plan_problem(cross_plan(), &t).message();
    EXPECT_NO_THROW(cross_plan().validate(&t));
}

TEST(PlanValidate, StructureIsCheckedWithoutATopology) {
    struct Case {
        void (*edit)(Plan&);
        const char* field;
    };
    const Case cases[] = {
        {[](Plan& p) { p.tp = 0; }, "degrees.tp"},
        {[](Plan& p) { p.dp = -1; }, "degrees.dp"},
        {[](Plan& p) { p.micro_batch = 0; }, "degrees.micro_batch"},
        {[](Plan& p) { p.num_micro_batches = 0; }, "degrees.num_micro_batches"},
        {[](Plan& p) { p.layers_per_stage.push_back(1); }, "layers_per_stage"},
        {[](Plan& p) { p.layers_per_stage = {8, 0}; }, "layers_per_stage[1]"},
        {[](Plan& p) { p.layers_per_stage = {4, 5}; }, "layers_per_stage"},
        {[](Plan& p) { p.cells.pop_back(); }, "cells"},
        {[](Plan& p) { p.cell(1, 2).cluster = -1; }, "cells[6].cluster_index"},
        {[](Plan& p) { p.cell(0, 1).node = -1; }, "cells[1].node_index"},
        {[](Plan& p) { p.cell(0, 3).first_gpu = -4; }, "cells[3].first_gpu"},
    };
    for (const Case& c : cases) {
        Plan p = cross_plan();
        c.edit(p);
        const PlanProblem problem = plan_problem(p);
        EXPECT_EQ(problem.field, c.field) << problem.message();
        EXPECT_FALSE(problem.what.empty()) << c.field;
        try {
            p.validate(nullptr, "my-plan");
            ADD_FAILURE() << c.field << ": no error";
        } catch (const InputError& e) {
            EXPECT_EQ(e.source(), "my-plan");
            EXPECT_EQ(e.field(), c.field);
        }
    }
}

TEST(PlanValidate, PlacementIsCheckedAgainstTheTopology) {
    const Topology t = two_sites();
    Plan p = cross_plan();
    p.cell(0, 2).cluster = 2;
    EXPECT_TRUE(plan_problem(p).empty()) << "without a topology any index >= 0 is taken";
    EXPECT_EQ(plan_problem(p, &t).field, "cells[2].cluster_index");
    EXPECT_NE(plan_problem(p, &t).what.find("no such cluster"), std::string::npos);

    p = cross_plan();
    p.cell(1, 0).node = 2;
    EXPECT_EQ(plan_problem(p, &t).field, "cells[4].node_index");
    EXPECT_NE(plan_problem(p, &t).what.find("no such node in west"), std::string::npos);

    p = cross_plan();
    p.cell(0, 1).first_gpu = 6;  // 6..9 on an 8-GPU node
    EXPECT_EQ(plan_problem(p, &t).field, "cells[1].first_gpu");
    EXPECT_EQ(plan_problem(p, &t).what, "GPUs 6..9 of cell (stage 0, replica 1) do not exist on east/east-n0 (8 GPUs)");
}

TEST(PlanValidate, TwoCellsOnTheSameGpusAreRefused) {
    const Topology t = two_sites();
    Plan p = cross_plan();
    p.cell(1, 3) = StageCell{0, 0, 2};  // GPUs 2..5 of east-n0, under cells (0, 0) and (0, 1)
    EXPECT_TRUE(plan_problem(p).empty()) << "without a topology cells are not checked against each other";
    const PlanProblem problem = plan_problem(p, &t);
    EXPECT_EQ(problem.field, "cells[7]");
    EXPECT_EQ(problem.what,
              "GPU 2 of east/east-n0 is used by two cells: cell (stage 0, replica 0) and cell (stage 1, replica 3)");
    EXPECT_THROW(p.validate(&t), InputError);
}

}  // namespace
}  // namespace spiderflow
