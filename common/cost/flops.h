// FLOP counts of a decoder-only transformer (Narayanan et al. SC'21, appendix; Kaplan et al. 2020).
// One multiply-add = 2 FLOPs. Attention scores and values are counted in full (no causal halving),
// as Megatron-LM reports them.
#pragma once

#include "common/model/catalog.h"
#include "common/model/job_spec.h"

namespace spiderflow::cost {

// Forward FLOPs of one token through one layer: 2 per active matmul weight + 4*s*h for QK^T and AV.
double layer_forward_flops_per_token(const ModelArch& m, int seq_len);
// The part of it selective recomputation repeats: QK^T and AV, 4*s*h (softmax and dropout are
// element-wise and not counted).
double attention_core_forward_flops_per_token(const ModelArch& m, int seq_len);
// Forward FLOPs of one token through the output (logits) layer: 2*h*V. The input embedding is a
// lookup and costs no FLOPs.
double logits_forward_flops_per_token(const ModelArch& m);
// Model FLOPs of one iteration: forward + backward (3x forward) over every token of the global
// batch, without recomputation. The numerator of MFU; about 6*N*tokens (Kaplan et al.).
double model_flops_per_iteration(const JobSpec& job);
// What the GPUs execute: model FLOPs plus one more forward of the layers with full recompute.
// Equals Megatron's 96*B*s*l*h^2*(1 + s/6h + V/16lh) for a GPT with recompute.
double hardware_flops_per_iteration(const JobSpec& job);

}  // namespace spiderflow::cost
