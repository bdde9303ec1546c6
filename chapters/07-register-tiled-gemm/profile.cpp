// Chapter 7's profile: each step of register tiling once, at M = N = K = 256 (a multiple of
// every step's block tile, so every tile is full and the float4 paths are taken). The kernel
// names are the instances the host code launches at that size, as ptxas names them (7d at
// its large tiling, named: its launcher would take the small one on a GPU with more SMs
// than the 4 large tiles of 256 x 256).
#include "register_tiled_gemm.h"
#include "tutorial_chapter.h"

#include "gemm/gemm_profile.h"

int main(int argc, char** argv) {
    tutorial::GemmProfile profile(TUTORIAL_CHAPTER, CHAPTER_NAME, 256);
    profile.add(STEP("a") ": a column of outputs per thread", "gemm_1d_kernel<64, 64, 8, 8>", register_tiled_gemm_1d);
    profile.add(STEP("b") ": a block of outputs per thread", "gemm_2d_kernel<128, 128, 8, 8, 8>", register_tiled_gemm_2d);
    profile.add(STEP("c") ": float4 loads, A stored transposed", "gemm_vectorized_kernel<128, 128, 8, 8, 8, 4, true, true>",
                register_tiled_gemm_vectorized);
    profile.add(STEP("d") ": warp tiles", "gemm_warptiled_kernel<128, 128, 16, 64, 32, 2, 8, 4, 4, false, true, true>",
                [](const float* A, const float* B, float* C, int M, int N, int K) {
                    register_tiled_gemm_warptiled_with(WarptileTiling::large, A, B, C, M, N, K);
                });
    return profile.run(argc, argv);
}
