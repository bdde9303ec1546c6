// Chapter 2's profile: the tiled GEMM with 16 x 16 and with 32 x 32 tiles, once each, at
// M = N = K = 128 (a multiple of both tiles: every tile is full, so each element of A and
// B is loaded from global memory N / TILE and M / TILE times).
#include "tiled_gemm.h"
#include "tutorial_chapter.h"

#include "gemm/gemm_profile.h"

int main(int argc, char** argv) {
    tutorial::GemmProfile profile(TUTORIAL_CHAPTER, CHAPTER_NAME, 128);
    for (int tile : {16, 32}) {
        profile.add(std::to_string(tile) + " x " + std::to_string(tile) + " tiles in shared memory",
                    "tiled_gemm_kernel<" + std::to_string(tile) + ">",
                    [tile](const float* A, const float* B, float* C, int M, int N, int K) {
                        tiled_gemm(A, B, C, M, N, K, tile);
                    });
    }
    return profile.run(argc, argv);
}
