// How close to peak the GEMMs of a layout run, from their shapes. A fit to our own cuBLAS
// measurements (bench/gemm_shapes.cpp, bench/results/gemm_shapes_h200.csv; the fit:
// bench/fit_gemm_shapes.py):
//
//     fraction of peak of C[m x n] = A[m x k] * B[k x n]  =  E / (1 + c_m/m + c_n/n + c_k/k)
//
// i.e. compute at E * peak plus an operand-traffic overhead that grows as a dimension narrows
// (1/m + 1/n + 1/k is the inverse arithmetic intensity of the GEMM). The cost model uses only the
// ratio to E, the "shape factor" (1 for an unboundedly large GEMM), on top of each GPU type's
// calibrated end-to-end efficiency (doc/cost-model.md, "Calibration").
#pragma once

#include "common/model/catalog.h"

namespace spiderflow::cost {

struct GemmShape {
    double m = 0, n = 0, k = 0;
};

// The fit itself: achieved fraction of dense peak on the measured GPU (H200, cuBLAS bf16).
double gemm_fraction_of_peak(GemmShape s);
// gemm_fraction_of_peak / E: in (0, 1], the same fit without the GPU's asymptote.
double gemm_shape_factor(GemmShape s);

// FLOP-weighted (harmonic, i.e. time-weighted) shape factor of the GEMMs of one transformer
// layer for a micro-batch of `micro_batch` sequences under tensor parallelism `tp`: QKV, the
// attention scores (QK^T) and values (AV) per head, the output projection and the FFN (per
// expert, tokens routed evenly, for a MoE; the router with the QKV shape).
double layer_gemm_factor(const ModelArch& m, int seq_len, int micro_batch, int tp);
// The same for the attention core alone (scores and values): what selective recomputation repeats.
double attention_core_gemm_factor(const ModelArch& m, int seq_len);
// The logits GEMM on the last stage: tokens x h by h x V/tp.
double logits_gemm_factor(const ModelArch& m, int seq_len, int micro_batch, int tp);

}  // namespace spiderflow::cost
