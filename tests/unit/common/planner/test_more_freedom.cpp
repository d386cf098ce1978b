// "Never worse with more freedom": allowing more GPUs, or leaving the count to the planner, must
// never give a worse plan under the same objective. A property over the shipped topologies and a
// generated one, through plan_job (what `spiderflow plan` and job_submit call): for GPU limits
// N1 < N2, plan(at most N2) is at least as good as plan(at most N1), and plan(best) as good as
// any plan(at most N). The worldwide-8 case is the one users met: at most 480 planned tokyo
// alone at 48 GPUs while at most 256 found oregon at 128, twice as fast.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/cost/cost_model.h"
#include "common/planner/plan_compare.h"
#include "common/planner/plan_job.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "fixtures.h"

using namespace sftest;

namespace {

std::string shipped(const std::string& rel) {
    const char* dir = std::getenv("SF_SRCDIR");
    return std::string(dir && *dir ? dir : ".") + "/" + rel;
}

double iteration_s(const Topology& t, const std::string& model, int batch, int seq, GpuCountMode mode, int gpus) {
    const CostModel cost(t, Catalog::builtin());
    PlanRequest r = request(model, batch, gpus, seq);
    r.job.gpu_mode = mode;
    const PlanResult p = plan_job(*make_planner("spinsearch"), r, cost);
    EXPECT_TRUE(p.plan.prediction.feasible);
    if (mode == GpuCountMode::at_most) {
        EXPECT_LE(p.plan.world_size(), gpus);
    }
    return p.plan.prediction.iteration_s;
}

struct Case {
    std::string topology;  // shipped file, or "" for the generated two sites
    std::string model;
    int batch, seq;
    std::vector<int> limits;  // ascending
};

}  // namespace

TEST(MoreFreedom, AHigherGpuLimitOrTheBestCountIsNeverWorse) {
    const std::vector<Case> cases = {
        {"contrib/topologies/worldwide-8.json", "llama3-70b", 1024, 4096, {128, 256, 480}},
        {"contrib/topologies/aws-4.json", "llama3-8b", 512, 4096, {32, 64, 128}},
        {"contrib/topologies/two-sites-thin-link.json", "gpt3-13b", 512, 2048, {16, 48, 96}},
        {"", "llama3-8b", 256, 2048, {8, 24, 64}},
    };
    for (const Case& c : cases) {
        const Topology t = c.topology.empty() ? two_sites(10) : read_topology(shipped(c.topology));
        const std::string where = (c.topology.empty() ? std::string("two_sites") : c.topology) + " " + c.model;
        double previous = 0;
        int previous_limit = 0;
        double best_at_most = 0;
        for (int n : c.limits) {
            const double s = iteration_s(t, c.model, c.batch, c.seq, GpuCountMode::at_most, n);
            if (previous_limit > 0) {
                EXPECT_LE(s, previous * (1 + 1e-9)) << where << ": at most " << n << " GPUs plans " << s
                                                     << " s per iteration, at most " << previous_limit << " plans "
                                                     << previous << " s";
            }
            previous = s;
            previous_limit = n;
            best_at_most = best_at_most == 0 ? s : std::min(best_at_most, s);
        }
        const double best = iteration_s(t, c.model, c.batch, c.seq, GpuCountMode::best, c.limits.back());
        EXPECT_LE(best, best_at_most * (1 + 1e-9)) << where << ": best count plans " << best << " s, at most plans "
                                                   << best_at_most << " s";
    }
}

// A micro-batch that cannot divide the replicas' share of the batch is named as the cause, not
// the degrees or the GPU count.
TEST(MoreFreedom, AnImpossibleMicroBatchIsNamed) {
    const Topology t = two_sites(10);
    const CostModel cost(t, Catalog::builtin());
    PlanRequest r = request("llama3-8b", 64, 16);
    r.micro_batch = 16;
    r.dp = 8;
    try {
        plan_job(*make_planner("spinsearch"), r, cost);
        FAIL() << "dp 8 x micro-batch 16 does not divide 64";
    } catch (const InfeasibleError& e) {
        EXPECT_NE(std::string(e.what()).find("dp x micro-batch (128) must divide the global batch 64"), std::string::npos)
            << e.what();
    }
}

// llama3-70b on 64 GPUs over two sites and a thin link: planned across both, at a loss.
class PlanCompare : public ::testing::Test {
protected:
    const Topology t = read_topology(shipped("contrib/topologies/two-sites-thin-link.json"));
    const CostModel cost{t, Catalog::builtin()};
    const std::unique_ptr<PlannerPolicy> planner = make_planner("spinsearch");
    const PlanRequest r = request("llama3-70b", 512, 64, 4096);
    const PlanResult p = plan_job(*planner, r, cost);
};

// Every plan says how it compares with the best plan in one site and on fewer GPUs; one that
// crosses sites at a loss says so and names the better request.
TEST_F(PlanCompare, CrossingAThinLinkAtALossSaysSoAndNamesTheBetterRequest) {
    const auto comparisons = compare_plan(*planner, r, cost, p.plan);
    ASSERT_EQ(comparisons.size(), 2u);
    EXPECT_EQ(comparisons[0].what, "the best plan in one site");
    ASSERT_TRUE(comparisons[0].found) << comparisons[0].why;
    EXPECT_EQ(comparisons[0].clusters.find(','), std::string::npos);
    EXPECT_LT(comparisons[0].iteration_s, p.plan.prediction.iteration_s);
    const std::string text = comparison_text(comparisons, p.plan);
    EXPECT_NE(text.find("This request does not pay"), std::string::npos) << text;
    EXPECT_NE(text.find("Ask for --gpus " + std::to_string(comparisons[0].gpus) + " --allow " + comparisons[0].clusters),
              std::string::npos) << text;

    // A plan in one site already is compared with fewer GPUs only, and no verdict when it wins.
    const PlanRequest small = request("llama3-8b", 256, 32);
    const PlanResult q = plan_job(*planner, small, cost);
    const auto only = compare_plan(*planner, small, cost, q.plan);
    ASSERT_EQ(only.size(), 1u);
    EXPECT_EQ(only[0].what, "the best plan on fewer GPUs");
    EXPECT_EQ(comparison_text(only, q.plan).find("does not pay"), std::string::npos);
}

// job_submit compares within what is left of its budget: a comparison out of time plans nothing
// more and says it was not judged (no verdict), one with time enough finds what an unbounded one does.
TEST_F(PlanCompare, ATimeLimitStopsTheComparison) {
    const auto none = compare_plan(*planner, r, cost, p.plan, 1e-9);
    ASSERT_EQ(none.size(), 2u);
    for (const PlanComparison& c : none) {
        EXPECT_FALSE(c.found);
        EXPECT_NE(c.why.find("not judged: out of time after 0 of"), std::string::npos) << c.why;
    }
    EXPECT_EQ(faster_alternative(none), nullptr);
    const auto ample = compare_plan(*planner, r, cost, p.plan, 600);
    const auto unbounded = compare_plan(*planner, r, cost, p.plan);
    ASSERT_EQ(ample.size(), unbounded.size());
    ASSERT_TRUE(ample[0].found) << ample[0].why;
    EXPECT_EQ(ample[0].clusters, unbounded[0].clusters);
}
