// Chapter 8's profile: each step once, at M = N = K = 256 (a multiple of the 32 x 32 tile,
// so every tile is full and every element is copied, none written as zero), with chapter 2's
// synchronous TILE 32 kernel beside them in the lesson's table. The kernel names are the
// instances the host code launches, as ptxas names them.
#include "async_copy_gemm.h"
#include "tutorial_chapter.h"

#include "gemm/gemm_profile.h"

#include <string>

int main(int argc, char** argv) {
    tutorial::GemmProfile profile(TUTORIAL_CHAPTER, CHAPTER_NAME, 256);
    // Rows of A, B and C start on 16 bytes at 256: the 16-byte copies of 8a, 8b and 8d.
    profile.add(STEP("a") ": two stages of __pipeline_memcpy_async", "double_buffered_gemm_kernel<32, 4>",
                async_double_buffered_gemm);
    for (int stages = kMinPipelineStages; stages <= kMaxPipelineStages; ++stages) {
        profile.add(STEP("b") ": cuda::pipeline, " + std::to_string(stages) + " stage(s)",
                    "pipeline_gemm_kernel<32, " + std::to_string(stages) + ", 4>",
                    [stages](const float* A, const float* B, float* C, int M, int N, int K) {
                        async_pipeline_gemm(A, B, C, M, N, K, stages);
                    });
    }
    profile.add(STEP("c") ": tiles from the Tensor Memory Accelerator", "tma_gemm_kernel<32, 2>", tma_gemm);
    profile.add(STEP("d") ": warp tiles, 3 stages of cp.async", "warptile_pipeline_gemm_kernel", async_warptile_gemm);
    return profile.run(argc, argv);
}
