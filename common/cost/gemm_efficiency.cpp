#include "common/cost/gemm_efficiency.h"

#include <algorithm>

namespace spiderflow::cost {

namespace {

// bench/fit_gemm_shapes.py on bench/results/gemm_shapes_h200.csv (288 GEMMs, h 4096-18432, TP 1-8,
// 2048-8192 tokens): relative error sd 6%, mean |error| 3.8%. The narrowest dimension measured is
// k = 512; the per-head attention GEMMs (k or n = head_dim, 64-256) extrapolate below it.
constexpr double kAsymptote = 0.7514;
constexpr double kCm = 60.2;
constexpr double kCn = 23.2;
constexpr double kCk = 263.4;

struct WeightedGemm {
    double flops;  // per token, any common unit
    GemmShape shape;
};

// Time-weighted mean: the layer runs at total FLOPs / sum of each GEMM's time.
double harmonic_factor(std::initializer_list<WeightedGemm> gemms) {
    double flops = 0, time = 0;
    for (const auto& g : gemms) {
        if (g.flops <= 0) continue;
        flops += g.flops;
        time += g.flops / gemm_shape_factor(g.shape);
    }
    return time > 0 ? flops / time : 1.0;
}

}  // namespace

double gemm_shape_factor(GemmShape s) {
    const auto inv = [](double c, double d) { return c / std::max(d, 1.0); };
    return 1.0 / (1.0 + inv(kCm, s.m) + inv(kCn, s.n) + inv(kCk, s.k));
}

double gemm_fraction_of_peak(GemmShape s) { return kAsymptote * gemm_shape_factor(s); }

double attention_core_gemm_factor(const ModelArch& m, int seq_len) {
    const double s = seq_len, d = m.head_dim();
    // Per head: scores (s x d)(d x s) and values (s x s)(s x d), equal FLOPs.
    return harmonic_factor({{1.0, {s, s, d}}, {1.0, {s, d, s}}});
}

double layer_gemm_factor(const ModelArch& m, int seq_len, int micro_batch, int tp) {
    const double h = m.hidden, t = tp, s = seq_len;
    const double tokens = s * std::max(1, micro_batch);
    const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
    const double ffn_in = (m.gated_ffn ? 2.0 : 1.0) * m.ffn_hidden;  // gate and up fused, as Megatron does
    const double used = m.is_moe() ? std::max(1, m.experts_per_token) : 1.0;
    const double expert_tokens = m.is_moe() ? tokens * used / m.experts : tokens;
    const double d = m.head_dim();
    // FLOPs per token (2 per multiply-add dropped: a common factor); they add up to
    // layer_forward_flops_per_token / 2.
    return harmonic_factor({
        {h * (h + 2.0 * kv), {tokens, (h + 2.0 * kv) / t, h}},
        {s * h, {s, s, d}},
        {s * h, {s, d, s}},
        {h * h, {tokens, h, h / t}},
        {used * h * ffn_in, {expert_tokens, ffn_in / t, h}},
        {used * h * m.ffn_hidden, {expert_tokens, h, m.ffn_hidden / t}},
        {m.is_moe() ? h * m.experts : 0.0, {tokens, static_cast<double>(m.experts), h}},
    });
}

double logits_gemm_factor(const ModelArch& m, int seq_len, int micro_batch, int tp) {
    const double tokens = static_cast<double>(seq_len) * std::max(1, micro_batch);
    return gemm_shape_factor({tokens, static_cast<double>(m.vocab) / tp, static_cast<double>(m.hidden)});
}

}  // namespace spiderflow::cost
