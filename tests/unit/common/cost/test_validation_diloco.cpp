// DiLoCo against published figures (doc/cost-model.md, "Validation").
#include <gtest/gtest.h>

#include <cstdio>

#include "common/cost/cost_model.h"
#include "common/plan/plan_traffic.h"
#include "common/plan/sequential_layout.h"
#include "tests/unit/common/cost/cost_fixture.h"

using namespace spiderflow;

namespace {

// INTELLECT-1 (Prime Intellect, "INTELLECT-1 Technical Report", arXiv 2412.01152, Nov 2024, and
// the release post and model card): 10B parameters, Llama-3 architecture with 42 layers, hidden
// 4096, 32 heads, context 8192, vocabulary 128256; up to 14 concurrent nodes of 8 H100 (112 GPUs)
// on 3 continents; each node a DiLoCo worker (FSDP2 inside the node) with 100 inner steps and
// int8 pseudo-gradients; 83% compute utilisation across continents, 96% with every node in the
// US; 36.2-41.4% MFU.
// Assumed where the sources we could read are silent: KV heads 8 and FFN 14336 (as Llama-3 8B;
// the total is then 10.2B); 128 sequences of 8192 tokens per node per inner step (about 1M
// tokens); ZeRO-1, recomputation and FlashAttention standing in for FSDP2's memory; every node
// its own site; the throughput one node's ring all-reduce sustains over the internet: 2.5 Gbit/s
// between US sites (40 ms one way), assumed before any run. The prediction depends mostly on it.
// Tolerance: +-5 percentage points of compute utilisation.
ModelArch intellect1() {
    ModelArch m = *Catalog::builtin().model("llama3-8b");
    m.name = "intellect-1";
    m.layers = 42;
    return m;
}

constexpr int kNodes = 14;

// Sites in index order; continent[i] groups them. Full mesh: every pair has its own route.
Topology worldwide(const std::vector<int>& continent, double same_gbps, double same_ms, double across_gbps,
                   double across_ms) {
    std::vector<sftest::ClusterSpec> sites;
    for (size_t i = 0; i < continent.size(); ++i) sites.push_back({"node" + std::to_string(i), "H100-SXM", 1, 8, 8 * 400});
    std::vector<sftest::LinkSpec> links;
    for (int a = 0; a < static_cast<int>(continent.size()); ++a)
        for (int b = a + 1; b < static_cast<int>(continent.size()); ++b) {
            const bool same = continent[static_cast<size_t>(a)] == continent[static_cast<size_t>(b)];
            links.push_back({a, b, same ? same_gbps : across_gbps, same ? same_ms : across_ms});
        }
    return sftest::make_topology(sites, links);
}

Prediction intellect1_on(const Topology& t) {
    JobSpec job = sftest::job_of(intellect1(), 128 * kNodes, 8192, Recompute::full);
    job.zero1 = true;
    job.flash_attention = true;
    job.sync.mode = SyncMode::diloco;
    job.sync.inner_steps = 100;
    job.sync.outer_precision = OuterPrecision::int8;
    // tp 1, pp 1, dp 8 per node: replica r on node r / 8, i.e. each site's 8 replicas at home.
    const Plan plan = make_sequential_plan(t, job, 1, 1, 8 * kNodes, 1);
    return CostModel(t, Catalog::builtin()).estimate(plan);
}

}  // namespace

TEST(Validation, Intellect1ComputeUtilisationInsideTheUs) {
    const Prediction p = intellect1_on(worldwide(std::vector<int>(kNodes, 0), 2.5, 40, 2.5, 40));
    ASSERT_TRUE(p.feasible) << p.infeasible_reason;
    std::printf("INTELLECT-1 US only: compute utilisation %.1f%% (published 96%%), outer all-reduce %.0f s, "
                "inner step %.1f s, MFU %.1f%%\n",
                100 * p.compute_utilisation, p.outer_allreduce_s, p.iteration_s - p.outer_exposed_s / 100, 100 * p.mfu);
    RecordProperty("compute_utilisation", std::to_string(p.compute_utilisation));
    EXPECT_NEAR(p.compute_utilisation, 0.96, 0.05);
    // The compute side on its own: the published MFU band, +-15% as the other MFU checks.
    EXPECT_GT(p.mfu, 0.362 * 0.85);
    EXPECT_LT(p.mfu, 0.414 * 1.15);
}

// Calibration, not a validation: across continents (8 nodes in the US, 4 in Europe, 2 in Asia,
// the ring crossing between continents three times) the throughput between continents is set
// so that the published 83% results: 0.265 Gbit/s (120 ms one way; 0.33 before the GEMM-shape
// efficiency lengthened the inner step). Assumed before any run, 0.5 Gbit/s gave 88.3%. The
// check guards the arithmetic that turns it into 83%: +-2 points.
TEST(Calibration, Intellect1ComputeUtilisationAcrossContinents) {
    std::vector<int> continent(kNodes, 0);
    for (int i = 8; i < 12; ++i) continent[static_cast<size_t>(i)] = 1;   // Europe
    for (int i = 12; i < 14; ++i) continent[static_cast<size_t>(i)] = 2;  // Asia
    const Prediction p = intellect1_on(worldwide(continent, 2.5, 40, 0.265, 120));
    ASSERT_TRUE(p.feasible) << p.infeasible_reason;
    std::printf("INTELLECT-1 3 continents: compute utilisation %.1f%% (published 83%%), outer all-reduce %.0f s, "
                "%.1f GB over the WAN per outer step\n",
                100 * p.compute_utilisation, p.outer_allreduce_s, p.outer_wan_bytes / 1e9);
    RecordProperty("compute_utilisation", std::to_string(p.compute_utilisation));
    EXPECT_NEAR(p.compute_utilisation, 0.83, 0.02);
}

namespace {

// Two sites, whole replicas at home; the same layout trained both ways.
struct SameLayout {
    Topology t = sftest::make_topology({{"east", "A100-80GB", 2}, {"west", "A100-80GB", 2}}, {{0, 1, 10, 30}});
    Plan plan(SyncMode mode, Precision training, OuterPrecision outer, int inner_steps) const {
        JobSpec job = sftest::job_of(*Catalog::builtin().model("llama3-8b"), 64, 2048, Recompute::none);
        job.precision = training;
        job.sync.mode = mode;
        job.sync.outer_precision = outer;
        job.sync.inner_steps = inner_steps;
        return make_sequential_plan(t, job, 8, 1, 4, 1);
    }
};

// WAN bytes per step: every flow of an iteration, plus the outer step's spread over H.
double wan_bytes_per_step(const Plan& p) {
    return iteration_wan_bytes(p) + (p.job.sync.diloco() ? outer_step_wan_bytes(p) / p.job.sync.inner_steps : 0.0);
}

}  // namespace

// Douillard et al. 2023, "DiLoCo: Distributed Low-Communication Training of Language Models":
// with H = 500 inner steps DiLoCo communicates 500x less than synchronous data parallelism.
// Identity: same layout, pseudo-gradients at the gradients' precision.
TEST(Validation, DilocoCommunicatesHTimesLess) {
    const SameLayout l;
    const double sync = wan_bytes_per_step(l.plan(SyncMode::sync, Precision::bf16, OuterPrecision::bf16, 500));
    const double diloco = wan_bytes_per_step(l.plan(SyncMode::diloco, Precision::bf16, OuterPrecision::bf16, 500));
    ASSERT_GT(diloco, 0);
    EXPECT_NEAR(sync / diloco, 500.0, 1e-9 * 500);
}

// INTELLECT-1's "400x reduction in communication bandwidth compared to traditional data-parallel
// training": fp32 gradients every step against int8 pseudo-gradients every 100 steps.
TEST(Validation, Intellect1FourHundredTimesLessCommunication) {
    const SameLayout l;
    const double sync = wan_bytes_per_step(l.plan(SyncMode::sync, Precision::fp32, OuterPrecision::int8, 100));
    const double diloco = wan_bytes_per_step(l.plan(SyncMode::diloco, Precision::fp32, OuterPrecision::int8, 100));
    EXPECT_NEAR(sync / diloco, 400.0, 1e-9 * 400);
}
