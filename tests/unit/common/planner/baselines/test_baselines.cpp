// The baseline policies: valid plans, the oracle property of exhaustive, orientation on a thin
// link, determinism, limits and refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <tuple>

#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_text.h"
#include "common/plan/plan_traffic.h"
#include "common/planner/baselines/common/portable_random.h"
#include "common/planner/baselines/common/evaluator.h"
#include "common/planner/baselines/exhaustive/exhaustive.h"
#include "common/planner/baselines/global_ilp/shape_milp.h"
#include "common/planner/baselines/global_ilp/shape_search.h"
#include "common/planner/planner.h"
#include "common/topology/generator.h"
#include "common/util/errors.h"
#include "common/util/units.h"
#include "tests/unit/common/topology/topo_fixture.h"

namespace spiderflow {
namespace {

const char* kBaselines[] = {"global-ilp", "genetic", "greedy", "first-fit", "exhaustive"};

Cluster cluster(const std::string& name, const std::string& gpu, int nodes) {
    Cluster c = test::small_cluster(name, nodes, gpu);
    c.region = name;
    c.intra_bandwidth_Bps = units::gbps_to_Bps(400);
    c.intra_latency_s = units::us_to_s(5);
    return c;
}

// Two 32-GPU clusters joined by a thin 10 Gbps link.
Topology two_sites() {
    Topology t;
    t.name = "two-sites";
    t.clusters.push_back(cluster("east", "A100-80GB", 4));
    t.clusters.push_back(cluster("west", "A100-80GB", 4));
    t.links.push_back(Link{0, 1, units::gbps_to_Bps(10), units::ms_to_s(30)});
    t.finalize("two-sites");
    return t;
}

// Three clusters, one of them slower and far away.
Topology three_sites() {
    Topology t;
    t.name = "three-sites";
    t.clusters.push_back(cluster("a", "A100-80GB", 2));
    t.clusters.push_back(cluster("b", "A100-80GB", 2));
    t.clusters.push_back(cluster("c", "H100-SXM", 2));
    t.links.push_back(Link{0, 1, units::gbps_to_Bps(100), units::ms_to_s(5)});
    t.links.push_back(Link{1, 2, units::gbps_to_Bps(5), units::ms_to_s(80)});
    t.links.push_back(Link{0, 2, units::gbps_to_Bps(2), units::ms_to_s(90)});
    t.finalize("three-sites");
    return t;
}

PlanRequest request(const std::string& model, int global_batch, int gpus) {
    PlanRequest r;
    const ModelArch* m = Catalog::builtin().model(model);
    EXPECT_NE(m, nullptr) << model;
    if (m) r.job.model = *m;
    r.job.seq_len = 2048;
    r.job.global_batch = global_batch;
    r.job.gpus = gpus;
    r.job.gpu_mode = GpuCountMode::exact;
    return r;
}

PlanRequest fixed(PlanRequest r, int tp, int pp, int dp, int mb) {
    r.tp = tp;
    r.pp = pp;
    r.dp = dp;
    r.micro_batch = mb;
    return r;
}

PlanResult run(const std::string& policy, const PlanRequest& req, const CostModel& cost) {
    return make_planner(policy)->plan(req, cost);
}

// Every cell on existing GPUs, no GPU twice, TP inside one node, layers complete.
void expect_valid(const Plan& p, const Topology& t, const std::string& who) {
    SCOPED_TRACE(who);
    ASSERT_EQ(p.cells.size(), static_cast<size_t>(p.pp) * p.dp);
    std::set<std::tuple<int, int, int>> used;
    for (const StageCell& c : p.cells) {
        ASSERT_GE(c.cluster, 0);
        ASSERT_LT(c.cluster, static_cast<int>(t.clusters.size()));
        ASSERT_GE(c.node, 0);
        ASSERT_LT(c.node, static_cast<int>(t.clusters[c.cluster].nodes.size()));
        EXPECT_LE(c.first_gpu + p.tp, t.clusters[c.cluster].nodes[c.node].gpus);
        for (int g = 0; g < p.tp; ++g) EXPECT_TRUE(used.insert({c.cluster, c.node, c.first_gpu + g}).second);
    }
    int layers = 0;
    for (int l : p.layers_per_stage) layers += l;
    EXPECT_EQ(layers, p.job.model.layers);
    EXPECT_TRUE(p.prediction.feasible) << p.prediction.infeasible_reason;
    EXPECT_GT(p.prediction.iteration_s, 0);
    EXPECT_EQ(p.world_size(), p.job.gpus);
}

TEST(Baselines, FactoryBuildsEveryBaseline) {
    for (const char* name : kBaselines) {
        auto p = make_planner(name);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(p->name(), name);
    }
    const auto names = planner_names();
    for (const char* name : kBaselines) EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    EXPECT_THROW(make_planner("annealing"), InputError);
}

TEST(Baselines, EveryPolicyGivesAValidPlan) {
    const Topology t = three_sites();
    const CostModel cost(t, Catalog::builtin());
    const PlanRequest req = fixed(request("llama2-13b", 64, 32), 8, 2, 2, 1);
    for (const char* name : kBaselines) {
        const auto t0 = std::chrono::steady_clock::now();
        const PlanResult r = run(name, req, cost);
        const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        expect_valid(r.plan, t, name);
        EXPECT_EQ(r.plan.policy, name);
        // The decision time the reports charge: measured (never left at 0), in milliseconds, and
        // within the call that made the plan.
        EXPECT_GT(r.plan.planning_ms, 0) << name;
        EXPECT_LE(r.plan.planning_ms, wall_ms) << name;
        // The plan survives the JSON round trip the CLI and plugins use.
        const Plan back = plan_from_json(plan_to_json(r.plan, t), "plan", &t);
        EXPECT_EQ(back.cells.size(), r.plan.cells.size());
    }
}

// The oracle property: on the same fixed shape nothing scores better than exhaustive.
TEST(Baselines, ExhaustiveIsNeverBeaten) {
    const Topology t = three_sites();
    const CostModel cost(t, Catalog::builtin());
    for (const auto& [model, batch] : {std::pair<std::string, int>{"llama2-13b", 64}, {"gpt3-1.3b", 1024}}) {
        const PlanRequest req = fixed(request(model, batch, 32), 8, 2, 2, 1);
        const PlanResult oracle = run("exhaustive", req, cost);
        EXPECT_FALSE(oracle.hit_limit);
        for (const char* name : {"global-ilp", "genetic", "greedy", "first-fit", "spinsearch"}) {
            const PlanResult r = run(name, req, cost);
            EXPECT_LE(oracle.plan.prediction.iteration_s, r.plan.prediction.iteration_s * (1 + 1e-9))
                << model << " " << name;
        }
        // The genetic search finds the oracle's optimum on a space this small.
        EXPECT_NEAR(run("genetic", req, cost).plan.prediction.iteration_s, oracle.plan.prediction.iteration_s,
                    oracle.plan.prediction.iteration_s * 0.01)
            << model;
    }
}

// The thin link carries whichever traffic is lighter for the job.
TEST(Baselines, ThinLinkCarriesTheLighterTraffic) {
    const Topology t = two_sites();
    const CostModel cost(t, Catalog::builtin());
    // Large model, modest batch: a pipeline boundary is far lighter than a stage's gradients.
    const PlanRequest big = fixed(request("llama2-13b", 64, 64), 8, 2, 4, 1);
    // Small model, huge batch: gradients are lighter than the activations of the batch.
    const PlanRequest small = fixed(request("gpt3-1.3b", 4096, 64), 8, 2, 4, 1);
    for (const char* name : {"exhaustive", "global-ilp", "genetic"}) {
        const Plan pb = run(name, big, cost).plan;
        ASSERT_GT(stage_gradient_bytes(pb, 0), pp_boundary_bytes(pb));
        EXPECT_EQ(plan_orientation(pb), "pipelines across clusters, DP inside") << name;
        const Plan ps = run(name, small, cost).plan;
        ASSERT_LT(stage_gradient_bytes(ps, 0), pp_boundary_bytes(ps));
        EXPECT_EQ(plan_orientation(ps), "pipelines inside clusters, DP across") << name;
    }
}

TEST(Baselines, FirstFitFillsClustersInOrder) {
    const Topology t = two_sites();
    const CostModel cost(t, Catalog::builtin());
    const PlanResult r = run("first-fit", request("llama2-13b", 64, 32), cost);
    expect_valid(r.plan, t, "first-fit");
    for (const StageCell& c : r.plan.cells) EXPECT_EQ(c.cluster, 0);
    // With east forbidden the same fill lands in west.
    PlanRequest req = request("llama2-13b", 64, 32);
    req.forbidden_clusters = {"east"};
    for (const StageCell& c : run("first-fit", req, cost).plan.cells) EXPECT_EQ(c.cluster, 1);
}

TEST(Baselines, GreedyKeepsDataParallelInsideAcluster) {
    const Topology t = three_sites();
    const CostModel cost(t, Catalog::builtin());
    const Plan p = run("greedy", fixed(request("llama2-13b", 64, 48), 8, 3, 2, 1), cost).plan;
    expect_valid(p, t, "greedy");
    for (int s = 0; s < p.pp; ++s) EXPECT_EQ(clusters_of_stage(p, s).size(), 1u) << "stage " << s;
}

TEST(Baselines, AllowedAndForbiddenClustersAreHonoured) {
    const Topology t = three_sites();
    const CostModel cost(t, Catalog::builtin());
    PlanRequest req = fixed(request("llama2-13b", 64, 32), 8, 2, 2, 1);
    req.allowed_clusters = {"a", "c"};
    for (const char* name : kBaselines)
        for (const StageCell& c : run(name, req, cost).plan.cells) EXPECT_NE(c.cluster, 1) << name;
}

TEST(Baselines, DeterministicForASeed) {
    const Topology t = three_sites();
    const CostModel cost(t, Catalog::builtin());
    const PlanRequest req = request("llama2-13b", 64, 32);
    for (const char* name : {"genetic", "greedy", "first-fit"}) {
        Plan a = run(name, req, cost).plan;
        Plan b = run(name, req, cost).plan;
        a.planning_ms = b.planning_ms = 0;
        EXPECT_EQ(plan_to_json(a, t), plan_to_json(b, t)) << name;
    }
}

TEST(Baselines, ImpossibleRequestsSayWhy) {
    const Topology t = two_sites();
    const CostModel cost(t, Catalog::builtin());
    for (const char* name : kBaselines) {
        try {
            run(name, request("llama2-13b", 64, 128), cost);
            ADD_FAILURE() << name << " planned 128 GPUs on 64";
        } catch (const InfeasibleError& e) {
            EXPECT_NE(std::string(e.what()).find("128"), std::string::npos) << name << ": " << e.what();
        }
    }
}

TEST(Baselines, ExhaustiveRefusesHugeSpaces) {
    EXPECT_DOUBLE_EQ(ExhaustivePolicy::layouts(2, 2, 4), 35);  // C(4 + 3, 4)
    EXPECT_DOUBLE_EQ(ExhaustivePolicy::layouts(3, 1, 2), 6);   // C(3 + 1, 2)
    const Topology t = two_sites();
    const CostModel cost(t, Catalog::builtin());
    try {
        run("exhaustive", request("gpt3-1.3b", 4096, 64), cost);
        ADD_FAILURE() << "exhaustive searched a space of every shape on 64 GPUs";
    } catch (const InfeasibleError& e) {
        EXPECT_NE(std::string(e.what()).find("refused"), std::string::npos) << e.what();
    }
}

TEST(Baselines, GlobalIlpProvesSmallInstancesAndReportsLimits) {
    const Topology t = three_sites();
    const CostModel cost(t, Catalog::builtin());
    PlanRequest req = fixed(request("llama2-13b", 64, 32), 8, 2, 2, 1);
    req.time_limit_s = 60;
    const PlanResult r = run("global-ilp", req, cost);
    EXPECT_FALSE(r.hit_limit) << r.note;
    EXPECT_NE(r.note.find("the proxy's optimum over every shape"), std::string::npos) << r.note;
    EXPECT_NE(r.note.find("cut_by_limit=0"), std::string::npos) << r.note;

    // A limit too short to look at every shape is reported, never hidden.
    PlanRequest rushed = request("llama2-13b", 64, 48);
    rushed.time_limit_s = 1e-6;
    try {
        const PlanResult q = run("global-ilp", rushed, cost);
        EXPECT_TRUE(q.hit_limit);
        EXPECT_NE(q.note.find("time limit"), std::string::npos) << q.note;
    } catch (const InfeasibleError& e) {
        EXPECT_NE(std::string(e.what()).find("time limit"), std::string::npos) << e.what();
    }
}

// Branch and bound across shapes: every shape's proxy is an iteration time in seconds, so a
// shape whose lower bound cannot beat a layout found elsewhere needs no MILP. On an instance
// small enough to solve every shape's MILP alone, the bounded search must close some shapes
// without one and still reach the same proxy optimum, proven.
TEST(Baselines, GlobalIlpBoundsAcrossShapesKeepTheProxyOptimum) {
    const Topology t = three_sites();
    const CostModel cost(t, Catalog::builtin());
    PlanRequest req = request("llama2-13b", 64, 32);
    req.time_limit_s = 120;
    baselines::Evaluator eval(req, cost, "global-ilp", 120);
    const std::vector<Shape> shapes = eval.shapes();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    const std::vector<global_ilp::ShapeCandidate> cands = global_ilp::shape_candidates(eval, shapes, deadline);
    ASSERT_EQ(cands.size(), shapes.size());
    ASSERT_GT(cands.size(), 2u);

    // Each bound is a bound: never above the shape's own start layout.
    for (const auto& c : cands) {
        if (!c.start.cells.empty()) {
            EXPECT_LE(c.bound.total, c.start.objective * (1 + 1e-12));
        }
    }

    std::vector<double> seen;
    auto sink = [&](size_t i, const std::vector<int>& cells) {
        std::vector<int> positions;
        for (int cl : cells) {
            const auto& order = cands[i].costs.clusters;
            positions.push_back(static_cast<int>(std::find(order.begin(), order.end(), cl) - order.begin()));
        }
        seen.push_back(global_ilp::proxy_objective(cands[i].costs, positions));
    };
    global_ilp::SearchOptions alone;
    alone.cross_shape_bounds = false;
    const global_ilp::SearchResult every = global_ilp::search_shapes(cands, deadline, alone, sink);
    ASSERT_TRUE(every.proven);
    EXPECT_EQ(every.pruned, 0);
    const int every_milps = every.optimal + every.closed;
    // The value reported is the value of a layout handed out.
    ASSERT_FALSE(seen.empty());
    EXPECT_DOUBLE_EQ(every.best, *std::min_element(seen.begin(), seen.end()));

    seen.clear();
    const global_ilp::SearchResult bounded = global_ilp::search_shapes(cands, deadline, {}, sink);
    ASSERT_TRUE(bounded.proven);
    EXPECT_GT(bounded.pruned, 0);
    EXPECT_LT(bounded.optimal + bounded.closed, every_milps);
    EXPECT_EQ(bounded.cut, 0);
    EXPECT_NEAR(bounded.best, every.best, every.best * global_ilp::kRelativeGap);
    EXPECT_DOUBLE_EQ(bounded.best, *std::min_element(seen.begin(), seen.end()));
}

// The limit bounds the whole call (model building, every CBC solve, realising) on an instance
// far too big to prove in it: 64 generated clusters, as the planner benchmark builds them.
TEST(Baselines, GlobalIlpHonoursASmallLimitOnALargeInstance) {
    GeneratorOptions g;
    g.clusters = 64;
    g.seed = 1;
    const Topology t = generate_topology(g);
    const CostModel cost(t, Catalog::builtin());
    PlanRequest req = request("llama3-70b", 512, 256);
    req.time_limit_s = 3;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        const PlanResult r = run("global-ilp", req, cost);
        EXPECT_TRUE(r.hit_limit) << r.note;
    } catch (const InfeasibleError& e) {
        EXPECT_NE(std::string(e.what()).find("time limit"), std::string::npos) << e.what();
    }
    // Ignoring the limit means running to the 600 s default. The margin below that is wide because
    // sanitizer builds on a loaded 2-core CI machine run the model building several times slower;
    // this checks that the limit is obeyed, not how quickly the policy stops.
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(wall_s, 60.0) << "a 3 s limit took " << wall_s << " s";
}

// The draws depend on std::mt19937_64's output only, which the standard fixes (its first
// output for the default seed 5489 is 14514284786278117030), not on a library's distributions.
TEST(Baselines, PortableRandomFollowsTheEngineOnly) {
    baselines::PortableRandom r(5489);
    EXPECT_EQ(r.below(uint64_t{1000}), 14514284786278117030ULL % 1000);
    baselines::PortableRandom u(5489);
    EXPECT_DOUBLE_EQ(u.uniform01(), static_cast<double>(14514284786278117030ULL >> 11) * 0x1.0p-53);
    baselines::PortableRandom a(7), b(7);
    std::vector<int> x(50), y(50);
    for (int i = 0; i < 50; ++i) x[static_cast<size_t>(i)] = y[static_cast<size_t>(i)] = i;
    a.shuffle(x);
    b.shuffle(y);
    EXPECT_EQ(x, y);
    std::vector<int> sorted = x;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < 50; ++i) EXPECT_EQ(sorted[static_cast<size_t>(i)], i);  // a permutation
    EXPECT_NE(x, sorted);
    for (int i = 0; i < 1000; ++i) EXPECT_LT(a.below(7), 7);
}

}  // namespace
}  // namespace spiderflow
