// The baselines as published: they decide on a flat, contention-free view of the federation and
// are priced on the real one.
#include <gtest/gtest.h>

#include <string>

#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/plan/sequential_layout.h"
#include "common/planner/baselines/published/published.h"
#include "common/planner/plan_job.h"
#include "common/util/units.h"
#include "tests/unit/common/topology/topo_fixture.h"

namespace spiderflow {
namespace {

// Two sites of 4 nodes (8 GPUs, two 200 Gb/s NICs each), the first behind two leaf switches with
// a thin uplink; one 10 Gb/s link between them.
Topology tapered_two_sites() {
    Topology t;
    t.name = "tapered";
    for (const char* name : {"east", "west"}) {
        Cluster c = test::small_cluster(name, 4);
        for (Node& n : c.nodes) {
            n.nics = {Nic{"mlx5_0", "ib", units::gbps_to_Bps(200)}, Nic{"mlx5_1", "ib", units::gbps_to_Bps(200)}};
        }
        t.clusters.push_back(c);
    }
    Cluster& east = t.clusters[0];
    east.switches = {Switch{"leaf0", {}, {"east-n0", "east-n1"}, units::gbps_to_Bps(25)},
                     Switch{"leaf1", {}, {"east-n2", "east-n3"}, units::gbps_to_Bps(25)},
                     Switch{"spine", {"leaf0", "leaf1"}, {}, 0}};
    for (int i = 0; i < 4; ++i) east.nodes[static_cast<size_t>(i)].leaf_switch = i < 2 ? "leaf0" : "leaf1";
    t.links.push_back(Link{0, 1, units::gbps_to_Bps(10), units::ms_to_s(20)});
    t.finalize("tapered");
    return t;
}

JobSpec llama8b(int global_batch) {
    JobSpec j;
    j.model = *Catalog::builtin().model("llama3-8b");
    j.global_batch = global_batch;
    j.seq_len = 2048;
    return j;
}

}  // namespace

TEST(Published, TheirViewIsFlatPoolsOfTheSameGpus) {
    const Topology real = tapered_two_sites();
    const Topology view = oblivious_view(real);
    ASSERT_EQ(view.clusters.size(), real.clusters.size());
    for (size_t c = 0; c < real.clusters.size(); ++c) {
        EXPECT_EQ(view.clusters[c].name, real.clusters[c].name);
        EXPECT_EQ(view.clusters[c].total_gpus(), real.clusters[c].total_gpus());
        EXPECT_TRUE(view.clusters[c].switches.empty());
        for (const Node& n : view.clusters[c].nodes) {
            EXPECT_TRUE(n.nics.empty());
            EXPECT_TRUE(n.leaf_switch.empty());
        }
        EXPECT_DOUBLE_EQ(view.clusters[c].intra_bandwidth_Bps, units::gbps_to_Bps(400));  // the nodes' mean
    }
    ASSERT_EQ(view.links.size(), 1u);
    EXPECT_DOUBLE_EQ(view.links[0].bandwidth_Bps, real.links[0].bandwidth_Bps);
}

TEST(Published, WithoutSharingEveryCrossingHasItsPathAlone) {
    const Topology t = tapered_two_sites();
    // Two pipelines, each crossing the WAN once: shared, each gets half of the 10 Gb/s link.
    const Plan p = make_sequential_plan(t, llama8b(64), 8, 2, 2, 1);
    CostOptions alone;
    alone.link_sharing = false;
    const Prediction shared = CostModel(t, Catalog::builtin()).estimate(p);
    const Prediction own = CostModel(t, Catalog::builtin(), alone).estimate(p);
    ASSERT_TRUE(shared.feasible && own.feasible);
    EXPECT_LT(own.pp_comm_s, shared.pp_comm_s);
}

TEST(Published, TheirPlanIsPricedOnTheRealFederation) {
    const Topology t = tapered_two_sites();
    const CostModel cost(t, Catalog::builtin());
    PlanRequest r;
    r.job = llama8b(64);
    r.job.gpus = 64;
    r.time_limit_s = 20;
    for (const char* name : {"genetic-dtfm", "ilp-oblivious", "greedy-atlas"}) {
        const auto policy = make_planner(name);
        EXPECT_EQ(policy->name(), name);
        const PlanResult got = policy->plan(r, cost);
        EXPECT_EQ(got.plan.policy, name);
        EXPECT_EQ(got.plan.world_size(), 64);
        const Prediction real = cost.estimate(got.plan);
        EXPECT_DOUBLE_EQ(got.plan.prediction.iteration_s, real.iteration_s) << name;
        EXPECT_NE(got.note.find("decided on its own model"), std::string::npos) << got.note;
    }
}

}  // namespace spiderflow
