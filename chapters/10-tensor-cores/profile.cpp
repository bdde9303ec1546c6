// Chapter 10's profile: each step once, at M = N = K = 256 (a multiple of the 128 × 128 × 64
// tile and of 10c's and 10d's 128 × 256 × 64, and of 8 elements per row, so every chunk is copied whole
// and none element by element). The inputs are the profile's usual random floats, rounded to BF16 on the host
// before each run; only the kernels are counted. The kernel names are the instances the
// host code launches, as ptxas names them.
#include "tensor_core_gemm.h"
#include "tutorial_chapter.h"

#include "gemm/bf16_inputs.h"
#include "gemm/gemm_profile.h"

int main(int argc, char** argv) {
    using tutorial::with_bf16_inputs;
    tutorial::GemmProfile profile(TUTORIAL_CHAPTER, CHAPTER_NAME, 256, tutorial::InputPrecision::bf16);
    profile.add(STEP("a") ": ldmatrix from row-major tiles", "mma_gemm_kernel<(SharedLayout)0>",
                with_bf16_inputs(mma_gemm_row_major));
    profile.add(STEP("a") ": ldmatrix from swizzled tiles", "mma_gemm_kernel<(SharedLayout)1>",
                with_bf16_inputs(mma_gemm_swizzled));
    profile.add(STEP("b") ": swizzled tiles, 3 stages of cp.async", "mma_pipeline_gemm_kernel",
                with_bf16_inputs(mma_pipeline_gemm));
    profile.add(STEP("c") ": wgmma from 128-byte swizzled TMA tiles", "wgmma_gemm_kernel", with_bf16_inputs(wgmma_gemm));
    profile.add(STEP("d") ": warp-specialized, persistent wgmma", "wgmma_specialized_gemm_kernel",
                with_bf16_inputs(wgmma_specialized_gemm));
    return profile.run(argc, argv);
}
