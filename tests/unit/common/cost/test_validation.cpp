// The cost model against published measurements. Each test names its source, the assumptions we
// add where the source is silent, and the tolerance; a prediction outside it fails. How the catalog
// efficiencies were calibrated (doc/cost-model.md, "Calibration"; the Calibration tests at the
// end): A100 by one constant over the ten rows of Narayanan et al. Table 1, so the Table 1 test
// checks how predictions follow the rows, not their level; H100 on Nemotron-4 340B's 8.0 s
// iteration.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iterator>

#include "common/cost/cost_model.h"
#include "common/cost/flops.h"
#include "common/plan/sequential_layout.h"
#include "tests/unit/common/cost/cost_fixture.h"

using namespace spiderflow;
using sftest::make_topology;

namespace {

// Per-GPU hardware throughput as Megatron-LM reports it: its FLOP formula (with recompute) over
// the iteration time.
double tflops_per_gpu(const Plan& plan, const Prediction& p) {
    return cost::hardware_flops_per_iteration(plan.job) / p.iteration_s / plan.world_size() / 1e12;
}

struct MegatronRow {
    const char* label;
    int layers, hidden, heads, tp, pp, gpus, batch;
    double published_tflops;
};

// Megatron-LM's interleaved schedule needs the layers of a stage split evenly into its model
// chunks; we take two chunks per GPU where a stage's layers allow it, else the smallest divisor
// above one (three for the 529.6B row's three layers per stage). Plain 1F1B without pipelining.
int assumed_virtual_stages(const MegatronRow& r) {
    if (r.pp == 1) return 1;
    const int per_stage = r.layers / r.pp;
    for (int v = 2; v <= per_stage; ++v)
        if (per_stage % v == 0) return v;
    return 1;
}

double predict_megatron(const MegatronRow& r) {
    // Selene: DGX A100 80GB nodes, eight 200 Gb/s HDR InfiniBand NICs each.
    const Topology t = make_topology({{"selene", "A100-80GB", r.gpus / 8, 8, 8 * 200}});
    const JobSpec job = sftest::job_of(sftest::megatron_gpt(r.layers, r.hidden, r.heads), r.batch, 2048, Recompute::full);
    Plan plan = make_sequential_plan(t, job, r.tp, r.pp, r.gpus / (r.tp * r.pp), 1);
    plan.virtual_stages = assumed_virtual_stages(r);
    const Prediction p = CostModel(t, Catalog::builtin()).estimate(plan);
    EXPECT_TRUE(p.feasible) << r.label << ": " << p.infeasible_reason;
    return tflops_per_gpu(plan, p);
}

// Narayanan et al. SC'21, Table 1: parameters, layers, hidden, heads, t, p, GPUs, batch, teraFLOP/s.
const MegatronRow kTable1[] = {
    {"1.7B", 24, 2304, 24, 1, 1, 32, 512, 137},          {"3.6B", 30, 3072, 32, 2, 1, 64, 512, 138},
    {"7.5B", 36, 4096, 32, 4, 1, 128, 512, 142},         {"18.4B", 40, 6144, 48, 8, 1, 256, 1024, 135},
    {"39.1B", 48, 8192, 64, 8, 2, 512, 1536, 138},       {"76.1B", 60, 10240, 80, 8, 4, 1024, 1792, 140},
    {"145.6B", 80, 12288, 96, 8, 8, 1536, 2304, 148},    {"310.1B", 96, 16384, 128, 8, 16, 1920, 2160, 155},
    {"529.6B", 105, 20480, 128, 8, 35, 2520, 2520, 163}, {"1008.0B", 128, 25600, 160, 8, 64, 3072, 3072, 163},
};

// Checks one row within +-10% and prints what it predicts (doc/cost-model.md's table is made of
// these lines).
void expect_megatron_row(const MegatronRow& r) {
    const double predicted = predict_megatron(r);
    std::printf("Megatron-LM %-7s v=%d published %5.1f predicted %5.1f TFLOP/s per GPU (%+.1f%%)\n", r.label,
                assumed_virtual_stages(r), r.published_tflops, predicted, 100 * (predicted / r.published_tflops - 1));
    EXPECT_NEAR(predicted / r.published_tflops, 1.0, 0.10)
        << r.label << ": predicted " << predicted << " TFLOP/s per GPU, published " << r.published_tflops;
}

}  // namespace

// Source: Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
// Megatron-LM", SC'21, Table 1: weak scaling of GPT models on Selene (DGX A100 80GB), sequence
// 2048, vocabulary 51200, full activation recomputation; per-GPU teraFLOP/s counted with their
// recompute formula (eq. 3, test MegatronFlopFormula). Every row, 1.7B to 1T. Assumptions where
// the paper is silent: micro-batch 1 (not given per row); the interleaved schedule on every
// pipelined row (section 5.1 describes the runs as using it with scatter/gather but gives no
// chunks per GPU; assumed_virtual_stages); our default dp_overlap 0.5; no ZeRO (the runs predate
// the distributed optimizer). The A100 efficiency is one constant fitted to these ten rows
// (Calibration.A100OnMegatronTable1). Tolerance: +-10% of the published value. A fit, not a
// validation: the rows are the points the constant was fitted on, so this checks how the model
// follows their shape; the held-out checks are the Validation tests below.
TEST(Calibration, MegatronTable1RowsFollowTheFit) {
    for (const auto& r : kTable1) expect_megatron_row(r);
}

// Source: Narayanan et al. SC'21, section 5.1: GPT-3 175B on 1024 A100 GPUs with batch size 1536
// achieves 140 teraFLOP/s per GPU. Assumptions: tp=8, pp=8 (so dp=16), micro-batch 1, Megatron's
// GPT-3 dimensions (96 layers, hidden 12288, 96 heads, vocabulary 51200), the interleaved schedule
// as for Table 1 (two chunks per GPU). Tolerance +-10%.
TEST(Validation, MegatronGpt3_175bOn1024Gpus) {
    expect_megatron_row({"175B", 96, 12288, 96, 8, 8, 1024, 1536, 140});
}

// Source: Kaplan et al. 2020, "Scaling Laws for Neural Language Models", section 2.1 and Table 1:
// training compute per token C = 6*N + 6*n_layer*n_ctx*d_model (forward 2N + 2*n_layer*n_ctx*d,
// backward twice that), i.e. ~6N when n_ctx << 12*d_model. Tolerance 5%: we count attention
// scores without causal halving and the logits layer separately, as Megatron-LM does.
TEST(Validation, SixNFlopsIdentity) {
    for (const char* name : {"gpt3-175b", "llama3-70b", "llama2-13b", "llama2-7b", "mixtral-8x7b"}) {
        const ModelArch& m = *Catalog::builtin().model(name);
        const JobSpec job = sftest::job_of(m, 1024, 2048, Recompute::none);
        // Kaplan's N for a MoE is the active parameters.
        const double n = m.is_moe() ? m.layers * m.active_params_per_layer() + m.embedding_params() : m.total_params();
        const double kaplan = (6.0 * n + 6.0 * m.layers * 2048.0 * m.hidden) * 1024.0 * 2048;
        EXPECT_NEAR(cost::model_flops_per_iteration(job) / kaplan, 1.0, 0.05) << name;
    }
}

// Source: Narayanan et al. SC'21, equation (3): a GPT with recomputation takes
// 96*B*s*l*h^2*(1 + s/(6h) + V/(16*l*h)) FLOPs per iteration. Exact for our GPT count.
TEST(Validation, MegatronFlopFormula) {
    const int B = 1536, s = 2048, l = 96, h = 12288, V = 51200;
    const JobSpec job = sftest::job_of(sftest::megatron_gpt(l, h, 96), B, s, Recompute::full);
    const double formula = 96.0 * B * s * l * double(h) * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
    EXPECT_NEAR(cost::hardware_flops_per_iteration(job) / formula, 1.0, 1e-12);
}

// Source: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
// Models" (arXiv 2205.05198), abstract: a 530B GPT-3-style model on 2,240 A100 GPUs reaches 54.2%
// MFU with sequence parallelism and selective recomputation, against 42.1% with full
// recomputation (29% faster). Held out: nothing was fitted to it. Assumptions where the abstract
// is silent: the 530B shape of Narayanan et al.'s Table 1 (105 layers, hidden 20480, 128 heads,
// vocabulary 51200, sequence 2048), tp 8 and pp 35 as there, so dp 8; global batch 2240,
// micro-batch 1; the interleaved schedule with 3 chunks per GPU (as for Table 1); Selene's
// nodes. Checked: the speed-up of selective + SP over full recomputation within 5% (the
// accounting plan_job's choice rests on), and each MFU's level within 15% (measured 2026-12-07:
// 47.9% and 36.8%, 12% below both: our A100 efficiency is fitted to Table 1's 2021 runs, and the
// later runs were faster at the same shape).
TEST(Validation, Korthikanti530bSelectiveAgainstFullRecomputation) {
    const Topology t = make_topology({{"selene", "A100-80GB", 280, 8, 8 * 200}});
    JobSpec job = sftest::job_of(sftest::megatron_gpt(105, 20480, 128), 2240, 2048, Recompute::full);
    Plan full = make_sequential_plan(t, job, 8, 35, 8, 1);
    full.virtual_stages = 3;
    Plan selective = full;
    selective.job.recompute = Recompute::selective;
    selective.job.sequence_parallel = true;
    const CostModel model(t, Catalog::builtin());
    const Prediction pf = model.estimate(full), ps = model.estimate(selective);
    ASSERT_TRUE(pf.feasible) << pf.infeasible_reason;
    ASSERT_TRUE(ps.feasible) << ps.infeasible_reason;
    std::printf("530B on 2,240 A100: MFU selective+SP %.3f (published 0.542), full %.3f (published 0.421), "
                "speed-up %.3f (published %.3f)\n",
                ps.mfu, pf.mfu, pf.iteration_s / ps.iteration_s, 0.542 / 0.421);
    EXPECT_NEAR((pf.iteration_s / ps.iteration_s) / (0.542 / 0.421), 1.0, 0.05);
    EXPECT_NEAR(ps.mfu / 0.542, 1.0, 0.15);
    EXPECT_NEAR(pf.mfu / 0.421, 1.0, 0.15);
}

// Source: NVIDIA technical blog, "Turbocharge LLM Training Across Long-Haul Data Center Networks
// with NVIDIA NeMo Framework" (2025): Nemotron-4 340B trained across two data centres about
// 1,000 km apart with hierarchical all-reduce reached ~96% scaling efficiency against one site.
// Assumptions (the post gives neither): 2 x 1536 H100 (192 DGX H100 per site, 8 x 400 Gb/s
// NICs per node), the inter-site link 12.8 Tb/s (32 x 400G wavelengths) with 5 ms one-way
// latency (1,000 km of fibre), tp=8, pp=12 (Nemotron-4 report), dp=32 with 16 whole pipelines per
// site, batch 2304 of 4096 tokens, ZeRO-1, interleaved schedule with 8 virtual stages, sequence
// parallelism and FlashAttention. Tolerance: +-4 percentage points.
TEST(Validation, NemotronTwoDatacentreScalingEfficiency) {
    const Topology t = make_topology({{"dc0", "H100-SXM", 192, 8, 8 * 400}, {"dc1", "H100-SXM", 192, 8, 8 * 400}},
                                     {{0, 1, 12800, 5}});
    JobSpec job = sftest::job_of(*Catalog::builtin().model("nemotron4-340b"), 2304, 4096, Recompute::none);
    job.zero1 = true;
    Plan plan = make_sequential_plan(t, job, 8, 12, 32, 1);
    // Replica-major placement: replicas 0..15 wholly in dc0, 16..31 in dc1 (DP crosses, PP local).
    std::vector<StageCell> slots[2];
    for (const auto& c : plan.cells) slots[c.cluster].push_back(c);
    size_t used[2] = {0, 0};
    for (int r = 0; r < 32; ++r) {
        for (int s = 0; s < 12; ++s) plan.cell(s, r) = slots[r / 16][used[r / 16]++];
    }
    plan.virtual_stages = 8;
    plan.job.sequence_parallel = true;
    plan.job.flash_attention = true;
    const Prediction p = CostModel(t, Catalog::builtin()).estimate(plan);
    ASSERT_TRUE(p.feasible) << p.infeasible_reason;
    RecordProperty("scaling_efficiency", std::to_string(p.scaling_efficiency));
    std::printf("Nemotron-4 340B on two data centres: scaling efficiency %.3f (published ~0.96)\n", p.scaling_efficiency);
    EXPECT_NEAR(p.scaling_efficiency, 0.96, 0.04);
}

// Source: Llama Team, Meta, "The Llama 3 Herd of Models" (2024), Table 4: Llama 3 405B on 8,192
// H100s, TP 8, PP 16, DP 64, sequence 8192, 16M tokens per batch: 43% BF16 MFU. Assumptions: the
// same schedule and memory refinements as the Nemotron test (8 virtual stages, sequence
// parallelism, FlashAttention), ZeRO-1, micro-batch 1, 8 x 400 Gb/s per node. Only MFU is
// checked: our memory model does not include Meta's memory optimisations. Tolerance +-15% of 43%.
TEST(Validation, Llama3_405bMfu) {
    const Topology t = make_topology({{"meta", "H100-SXM", 1024, 8, 8 * 400}});
    JobSpec job = sftest::job_of(*Catalog::builtin().model("llama3-405b"), 2048, 8192, Recompute::none);
    job.zero1 = true;
    job.sequence_parallel = true;
    job.flash_attention = true;
    Plan plan = make_sequential_plan(t, job, 8, 16, 64, 1);
    plan.virtual_stages = 8;
    const Prediction p = CostModel(t, Catalog::builtin()).estimate(plan);
    RecordProperty("mfu", std::to_string(p.mfu));
    std::printf("Llama 3 405B: MFU %.3f (published 0.43)\n", p.mfu);
    EXPECT_NEAR(p.mfu / 0.43, 1.0, 0.15) << "predicted MFU " << p.mfu;
}

// Calibration check, not a validation: the A100 efficiency is the one constant that makes the
// geometric mean of predicted / published over the ten Table 1 rows 1 (doc/cost-model.md,
// "Calibration"; the rows and their assumptions as in MegatronTable1RowsFollowTheFit). Guards the
// catalog against drifting from it. Tolerance 2%.
TEST(Calibration, A100OnMegatronTable1) {
    double log_sum = 0;
    for (const auto& r : kTable1) log_sum += std::log(predict_megatron(r) / r.published_tflops);
    const double geometric_mean = std::exp(log_sum / std::size(kTable1));
    std::printf("A100 calibration: geometric mean of predicted / published over Table 1 = %.4f\n", geometric_mean);
    EXPECT_NEAR(geometric_mean, 1.0, 0.02);
}

// Calibration check, not a validation: the H100 efficiency was set so that Nemotron-4 340B on
// 6,144 H100 (tp 8, pp 12, dp 64, batch 2304, sequence 4096) takes 8.0 s per iteration (Nemotron-4
// 340B technical report, Table 2). Guards the catalog against drifting from its documented
// calibration. Tolerance 5%.
TEST(Calibration, Nemotron340bIterationTime) {
    const Topology t = make_topology({{"eos", "H100-SXM", 768, 8, 8 * 400}});
    JobSpec job = sftest::job_of(*Catalog::builtin().model("nemotron4-340b"), 2304, 4096, Recompute::none);
    job.zero1 = true;
    job.sequence_parallel = true;
    job.flash_attention = true;
    Plan plan = make_sequential_plan(t, job, 8, 12, 64, 1);
    plan.virtual_stages = 8;
    const Prediction p = CostModel(t, Catalog::builtin()).estimate(plan);
    ASSERT_TRUE(p.feasible) << p.infeasible_reason;
    std::printf("H100 calibration: Nemotron-4 340B iteration %.2f s (published 8.0 s), MFU %.3f\n", p.iteration_s, p.mfu);
    EXPECT_NEAR(p.iteration_s / 8.0, 1.0, 0.05) << p.iteration_s;
}
