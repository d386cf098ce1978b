// Achieved bf16 GEMM throughput on this GPU for the matrix shapes a transformer layer produces
// under tensor parallelism: the measurement behind a shape-dependent GEMM efficiency in the cost
// model (today one efficiency per GPU type, common/model/catalog/gpus.json). Per layer and
// micro-batch of T tokens (sequence x micro-batch), hidden h and TP degree t, Megatron-LM runs
//   qkv:  T x h   by h x 3h/t      proj: T x h/t by h/t x h
//   fc1:  T x h   by h x 4h/t      fc2:  T x 4h/t by 4h/t x h
// (the GQA and gated-FFN widths differ per model; these four span the range). cuBLAS picks its
// algorithm as it would inside PyTorch (cublasGemmEx, bf16 in, fp32 accumulate, tensor ops).
// Prints CSV: h,tp,tokens,gemm,m,n,k,ms,tflops,fraction of PEAK_TFLOPS.
// Usage: bench/gemm_shapes [PEAK_TFLOPS]   (default 989: H100/H200 SXM dense bf16)
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

bool ok(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return true;
    std::fprintf(stderr, "gemm_shapes: %s: %s\n", what, cudaGetErrorString(e));
    return false;
}

// Mean milliseconds of one C[m x n] = A[m x k] * B[k x n] over `reps` runs after warm-up.
double time_gemm(cublasHandle_t h, int m, int n, int k, void* a, void* b, void* c, int reps) {
    const float alpha = 1, beta = 0;
    // Column-major cuBLAS: C^T (n x m) = B^T (n x k) * A^T (k x m).
    auto run = [&] {
        return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, CUDA_R_16BF, n, a, CUDA_R_16BF, k, &beta, c,
                            CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
    };
    for (int i = 0; i < 3; ++i)
        if (run() != CUBLAS_STATUS_SUCCESS) return -1;
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    for (int i = 0; i < reps; ++i) run();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return ms / reps;
}

// bf16 values of magnitude 0.5-2 with random signs and mantissas, one 32 MiB pattern repeated.
bool fill_random(void* dst, size_t bytes) {
    std::vector<uint16_t> pattern(16u << 20);
    uint32_t x = 2463534242u;
    for (uint16_t& v : pattern) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        v = static_cast<uint16_t>((x & 0x8000u) | (0x3F00u + (x & 0x00FFu)));
    }
    const size_t chunk = pattern.size() * 2;
    for (size_t off = 0; off < bytes; off += chunk) {
        if (!ok(cudaMemcpy(static_cast<char*>(dst) + off, pattern.data(), std::min(chunk, bytes - off), cudaMemcpyHostToDevice),
                "cudaMemcpy"))
            return false;
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const double peak = argc > 1 ? std::atof(argv[1]) : 989.0;
    cudaDeviceProp prop{};
    if (!ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties")) return 1;
    std::fprintf(stderr, "gemm_shapes: %s, peak taken as %.0f TFLOPS bf16 dense\n", prop.name, peak);
    const std::vector<int> hiddens = {4096, 5120, 8192, 12288, 16384, 18432};
    const std::vector<int> tps = {1, 2, 4, 8};
    const std::vector<int> token_counts = {2048, 4096, 8192};
    // Largest operands: T x 4h and 4h x h at h = 18432, T = 8192, tp = 1.
    const size_t max_elems = static_cast<size_t>(8192) * 4 * 18432;
    void *a = nullptr, *b = nullptr, *c = nullptr;
    const size_t bytes = max_elems * 2;
    if (!ok(cudaMalloc(&a, bytes), "cudaMalloc") || !ok(cudaMalloc(&b, static_cast<size_t>(4) * 18432 * 18432 * 2), "cudaMalloc") ||
        !ok(cudaMalloc(&c, bytes), "cudaMalloc"))
        return 1;
    // Random operands: zeros draw less power, the GPU then holds higher clocks and the figures
    // come out 5-10% above what training sees.
    if (!fill_random(a, bytes) || !fill_random(b, static_cast<size_t>(4) * 18432 * 18432 * 2)) return 1;
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
    std::printf("h,tp,tokens,gemm,m,n,k,ms,tflops,fraction_of_peak\n");
    for (int hdim : hiddens)
        for (int tp : tps)
            for (int tokens : token_counts) {
                struct Shape {
                    const char* name;
                    int n, k;
                } shapes[] = {{"qkv", 3 * hdim / tp, hdim}, {"proj", hdim, hdim / tp}, {"fc1", 4 * hdim / tp, hdim},
                              {"fc2", hdim, 4 * hdim / tp}};
                for (const Shape& s : shapes) {
                    const double ms = time_gemm(handle, tokens, s.n, s.k, a, b, c, 20);
                    if (ms <= 0) {
                        std::fprintf(stderr, "gemm_shapes: cublasGemmEx failed at h=%d tp=%d T=%d %s\n", hdim, tp, tokens, s.name);
                        continue;
                    }
                    const double tflops = 2.0 * tokens * s.n * s.k / (ms * 1e-3) / 1e12;
                    std::printf("%d,%d,%d,%s,%d,%d,%d,%.4f,%.1f,%.3f\n", hdim, tp, tokens, s.name, tokens, s.n, s.k, ms, tflops,
                                tflops / peak);
                }
            }
    cublasDestroy(handle);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 0;
}
