// Chapter 8 benchmark: the asynchronous-copy steps against chapter 2, chapter 7 and cuBLAS.
//
// `make chapter8 bench` times your kernels; `make chapter8 bench SOLUTIONS=1` the
// reference. For 1024³ and 4096³ it times cuBLAS SGEMM in pure FP32 (the ceiling:
// CUBLAS_PEDANTIC_MATH, no TF32), chapter 2's tiled GEMM at TILE 32 (the same tile and
// threads as every step here, loaded synchronously: the baseline) and chapter 7's warp
// tiles (7d, the best kernel so far), both their reference solutions linked in by
// mk/bench.mk; then 8a, 8b at 2, 3 and 4 stages, 8d, and 8c on a GPU of compute
// capability 9.0 or newer. At 4095³ and 4097³, where no row starts on 16 bytes, it times 8d
// (its padded copies of A and B, made inside the timed call) against 7d. Each result is checked against the CPU after timing.
#include "async_copy_gemm.h"
#include "tutorial_chapter.h"
#include "register_tiled_gemm.h"
#include "tiled_gemm.h"

#include "cuda_check.h"
#include "gemm/gemm_benchmark.h"

#include <cstdio>
#include <string>

namespace {

void tiled_32(const float* A, const float* B, float* C, int M, int N, int K) { tiled_gemm(A, B, C, M, N, K, 32); }

template <int STAGES>
void pipeline_stages(const float* A, const float* B, float* C, int M, int N, int K) {
    async_pipeline_gemm(A, B, C, M, N, K, STAGES);
}

int compute_capability() {
    int device = 0, major = 0, minor = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    return major * 10 + minor;
}

}  // namespace

int main(int argc, char* argv[]) {
    using namespace tutorial::benchmark;
    return run(argc, argv, [](Session& session) {
        const int capability = compute_capability();
        for (int size : {1024, 4096}) {
            GemmBenchmark gemm(session, size);
            gemm.time_kernel("tiled 32 (chapter 2 solution)", tiled_32, /*is_baseline=*/true);
            gemm.time_kernel("7d warp tiles (chapter 7 solution)", register_tiled_gemm_warptiled);
            if (capability < 80) continue;  // cp.async: compute capability 8.0
            gemm.time_kernel(STEP("a") " two stages, __pipeline_memcpy_async", async_double_buffered_gemm);
            gemm.time_kernel(STEP("b") " cuda::pipeline, 2 stages", pipeline_stages<2>);
            gemm.time_kernel(STEP("b") " cuda::pipeline, 3 stages", pipeline_stages<3>);
            gemm.time_kernel(STEP("b") " cuda::pipeline, 4 stages", pipeline_stages<4>);
            gemm.time_kernel(STEP("d") " warp tiles, 3-stage cp.async pipeline", async_warptile_gemm);
            if (capability < 90) continue;  // the Tensor Memory Accelerator: 9.0
            gemm.time_kernel(STEP("c") " Tensor Memory Accelerator, 2 stages", tma_gemm);
        }
        // Rows that do not start on 16 bytes: 8d pads copies of A and B, against 7d.
        for (int size : {4095, 4097}) {
            if (capability < 80) break;
            GemmBenchmark gemm(session, size);
            gemm.time_kernel("7d warp tiles (chapter 7 solution)", register_tiled_gemm_warptiled, /*is_baseline=*/true);
            gemm.time_kernel(STEP("d") " warp tiles, 3-stage cp.async pipeline", async_warptile_gemm);
        }
        if (capability < 90) {
            std::printf("\nThis GPU is compute capability %d.%d: the steps that need %s are not timed.\n",
                        capability / 10, capability % 10, capability < 80 ? "8.0 (cp.async) or 9.0" : "9.0 (" STEP("c") ")");
        }
    });
}
