// Chapter 10 benchmark: the tensor-core steps against cuBLAS BF16 and the FP32 chapters' best.
//
// `make chapter10 bench` times your kernels; `make chapter10 bench SOLUTIONS=1` the
// reference. At 1024³, 4096³ and 8192³ it times cuBLAS with BF16 inputs and FP32
// accumulation (cublasGemmEx, CUBLAS_COMPUTE_32F: the ceiling and the library row),
// chapter 7's warp tiles on the same values as floats (7d, the best FP32 kernel of the
// course, its reference solution linked in by mk/bench.mk: the baseline, so that the
// speed-up column is the tensor cores' factor), then 10a with row-major and with swizzled
// tiles, 10b, and on a Hopper GPU (compute capability 9.0, sm_90a) 10c and 10d (going
// further). Each result is checked against the CPU after timing.
#include "register_tiled_gemm.h"
#include "tutorial_chapter.h"
#include "tensor_core_gemm.h"

#include "cuda_check.h"
#include "gemm/bf16_gemm_benchmark.h"

#include <cstdio>

int main(int argc, char* argv[]) {
    using namespace tutorial::benchmark;
    return run(argc, argv, [](Session& session) {
        int device = 0, major = 0, minor = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
        for (int size : {1024, 4096, 8192}) {
            Bf16GemmBenchmark gemm(session, size);
            gemm.time_fp32_kernel("7d warp tiles, FP32 (chapter 7 solution)", register_tiled_gemm_warptiled,
                                  /*is_baseline=*/true);
            if (major < 8) continue;  // ldmatrix, mma.sync with BF16, cp.async: compute capability 8.0
            gemm.time_kernel(STEP("a") " mma.sync, row-major tiles", mma_gemm_row_major);
            gemm.time_kernel(STEP("a") " mma.sync, swizzled tiles", mma_gemm_swizzled);
            gemm.time_kernel(STEP("b") " mma.sync, 3-stage cp.async pipeline", mma_pipeline_gemm);
            if (major != 9 || minor != 0) continue;  // wgmma: sm_90a, compute capability 9.0 only
            gemm.time_kernel(STEP("c") " wgmma, 4-stage TMA pipeline", wgmma_gemm);
            gemm.time_kernel(STEP("d") " wgmma, warp-specialized and persistent", wgmma_specialized_gemm);
        }
        if (major < 8) {
            std::printf("\nThis GPU is compute capability %d.%d: the tensor-core steps need 8.0 and are not timed.\n",
                        major, minor);
        } else if (major != 9 || minor != 0) {
            std::printf("\nThis GPU is compute capability %d.%d: " STEP("c") "'s and " STEP("d") "'s wgmma need sm_90a (9.0) and are not "
                        "timed.\n",
                        major, minor);
        }
    });
}
