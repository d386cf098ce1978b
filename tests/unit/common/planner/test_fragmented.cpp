// SpinSearch on fragmented free capacity: partial nodes scattered over clusters of different
// GPU types and links, as a loaded federation leaves them. Small enough for global-ilp to run
// without a time cap. SpinSearch must stay within 1% of it and never lose to greedy or first-fit.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/cost/cost_model.h"
#include "common/planner/plan_job.h"
#include "common/site/site_state.h"
#include "common/topology/reader.h"
#include "fixtures.h"

using namespace sftest;

namespace {

// Three clusters of 3 or 4 nodes (A100-80GB, H100-SXM, A100-40GB), linked at 25-100 Gb/s, with a
// random part of every node's GPUs busy.
Topology fragmented(unsigned seed, int* free_gpus) {
    std::mt19937 rng(seed);
    Topology t;
    t.name = "fragmented-" + std::to_string(seed);
    const char* types[] = {"A100-80GB", "H100-SXM", "A100-40GB"};
    const char* names[] = {"a", "b", "c"};
    for (int c = 0; c < 3; ++c) t.clusters.push_back(make_cluster(names[c], {{types[c], 3 + static_cast<int>(rng() % 2)}}));
    for (int a = 0; a < 3; ++a)
        for (int b = a + 1; b < 3; ++b) link(t, a, b, 25.0 * (1 + rng() % 4), 5 + rng() % 30);
    t.finalize(t.name);
    spiderflow::SiteState state(std::make_shared<const Topology>(t));
    std::vector<spiderflow::NodeShare> busy;
    for (const Cluster& c : t.clusters)
        for (const Node& n : c.nodes) {
            const int used = static_cast<int>(rng() % 9);  // 0..8 of 8
            if (used > 0) busy.push_back({{c.name, n.name}, used, 0});
        }
    if (!busy.empty()) state.allocate("others", busy, 0);
    Topology view = state.free_view(0);
    *free_gpus = view.total_gpus();
    return view;
}

std::string shipped(const std::string& rel) {
    const char* dir = std::getenv("SF_SRCDIR");
    return std::string(dir && *dir ? dir : ".") + "/" + rel;
}

double iteration(const std::string& policy, const PlanRequest& r, const CostModel& cost) {
    try {
        return plan_job(*make_planner(policy), r, cost).plan.prediction.iteration_s;
    } catch (const InfeasibleError&) {
        return -1;
    }
}

}  // namespace

TEST(Fragmented, SpinSearchWithinOnePercentOfTheIlpAndNeverBehindTheGreedyOnes) {
    int compared = 0;
    double worst = 0;
    for (unsigned seed = 1; seed <= 30; ++seed) {
        int free_gpus = 0;
        const Topology view = fragmented(seed, &free_gpus);
        const CostModel cost(view, Catalog::builtin());
        for (int gpus : {16, 32}) {
            if (gpus > free_gpus) continue;
            PlanRequest r = request("llama3-8b", 128, gpus);
            r.job.gpu_mode = GpuCountMode::exact;
            const double spin = iteration("spinsearch", r, cost);
            const double ilp = iteration("global-ilp", r, cost);
            if (ilp < 0) continue;  // nothing fits these free GPUs exactly
            ASSERT_GT(spin, 0) << "seed " << seed << ", " << gpus << " GPUs: global-ilp planned, spinsearch did not";
            ++compared;
            worst = std::max(worst, spin / ilp - 1);
            EXPECT_LE(spin, 1.01 * ilp) << "seed " << seed << ", " << gpus << " GPUs";
            for (const char* other : {"greedy", "first-fit"}) {
                const double o = iteration(other, r, cost);
                if (o > 0) EXPECT_LE(spin, o * (1 + 1e-9)) << other << ", seed " << seed << ", " << gpus << " GPUs";
            }
        }
    }
    std::printf("fragmented: %d cases compared; spinsearch at most %.2f%% slower than global-ilp\n", compared,
                100 * worst);
    EXPECT_GE(compared, 40);
}

namespace {

// The planner's search on a fixed shape against exhaustive search, the oracle where it finishes
// (every layout of the shape scored by the cost model): the relative gap, or -1 when exhaustive
// refused or nothing fits.
double gap_to_exhaustive(const PlanRequest& r, const CostModel& cost, std::string* what) {
    PlanResult oracle;
    try {
        oracle = make_planner("exhaustive")->plan(r, cost);
    } catch (const InfeasibleError&) {
        return -1;
    }
    if (oracle.hit_limit) return -1;
    PlanResult spin;
    try {
        spin = make_planner("spinsearch")->plan(r, cost);
    } catch (const InfeasibleError& e) {
        *what = std::string("spinsearch found no layout: ") + e.what();
        return std::numeric_limits<double>::infinity();
    }
    *what = spin.note;
    return spin.plan.prediction.iteration_s / oracle.plan.prediction.iteration_s - 1;
}

PlanRequest fixed_shape(const char* model, int batch, int tp, int pp, int dp) {
    PlanRequest r = request(model, batch, tp * pp * dp);
    r.tp = tp;
    r.pp = pp;
    r.dp = dp;
    r.micro_batch = 1;
    return r;
}

}  // namespace

// Issue 38: SpinSearch within 1% of exhaustive search wherever exhaustive finishes, on fragmented
// free capacity (three clusters of three GPU types) and on multi-region federations (the shipped
// four-region and eight-region examples), shapes fixed so that exhaustive's space stays small.
// Where exhaustive refuses (more than its 200,000 layouts: tp1 pp4 dp4 over three clusters, every
// shape on worldwide-8's eight regions, tp4 pp4 dp4 on aws-4) or nothing fits, the case is counted
// as not compared and the count printed. Two cases failed before SpinSearch turned pipelines
// round, filled mixes stage by stage and screened from larger-memory seeds: fragmented seed 5
// tp2 pp2 dp4 (10.5% behind) and seed 6 tp2 pp2 dp4 (no layout found).
TEST(Fragmented, SpinSearchWithinOnePercentOfExhaustive) {
    int compared = 0, not_compared = 0;
    double worst = 0;
    auto check = [&](const PlanRequest& r, const CostModel& cost, const std::string& where) {
        std::string note;
        const double gap = gap_to_exhaustive(r, cost, &note);
        if (gap < -0.5) {
            ++not_compared;
            return;
        }
        ++compared;
        worst = std::max(worst, gap);
        EXPECT_LE(gap, 0.01) << where << ": spinsearch " << 100 * gap << "% behind exhaustive; " << note;
    };
    for (unsigned seed = 1; seed <= 12; ++seed) {
        int free_gpus = 0;
        const Topology view = fragmented(seed, &free_gpus);
        const CostModel cost(view, Catalog::builtin());
        for (auto [tp, pp, dp] : {std::array<int, 3>{2, 2, 4}, {1, 4, 4}, {4, 2, 2}})
            if (tp * pp * dp <= free_gpus)
                check(fixed_shape("llama3-8b", 128, tp, pp, dp), cost,
                      "fragmented seed " + std::to_string(seed) + " tp" + std::to_string(tp) + " pp" +
                          std::to_string(pp) + " dp" + std::to_string(dp));
    }
    for (const char* file : {"aws-4.json", "worldwide-8.json"}) {
        const Topology t = read_topology(shipped(std::string("contrib/topologies/") + file));
        const CostModel cost(t, Catalog::builtin());
        for (auto [tp, pp, dp] : {std::array<int, 3>{8, 4, 2}, {4, 4, 4}, {8, 2, 4}})
            check(fixed_shape("gpt3-1.3b", 256, tp, pp, dp), cost,
                  std::string(file) + " tp" + std::to_string(tp) + " pp" + std::to_string(pp) + " dp" + std::to_string(dp));
    }
    std::printf("exhaustive: %d cases compared (%d not: exhaustive refused or nothing fits); spinsearch at most %.2f%% "
                "behind\n",
                compared, not_compared, 100 * worst);
    EXPECT_GE(compared, 20);
}
