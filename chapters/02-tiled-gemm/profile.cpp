// Chapter 2's profile: the tiled GEMM with 16 x 16 and with 32 x 32 tiles, once each, at
// M = N = K = 128 (a multiple of both tiles: every tile is full, so each element of A and
// B is loaded from global memory N / TILE and M / TILE times).
#include "tiled_gemm.h"
#include "tutorial_chapter.h"

#include "device_buffer.h"
#include "profile/profile.h"
#include "random.h"

int main(int argc, char** argv) {
    constexpr int M = 128, N = 128, K = 128;
    const tutorial::DeviceBuffer<float> A(tutorial::random_floats(M * K, 1));
    const tutorial::DeviceBuffer<float> B(tutorial::random_floats(K * N, 2));
    tutorial::DeviceBuffer<float> C(M * N);
    tutorial::profile::Chapter chapter{TUTORIAL_CHAPTER, CHAPTER_NAME, "M = N = K = 128", {}};
    for (int tile : {16, 32}) {
        chapter.variants.push_back({std::to_string(tile) + " x " + std::to_string(tile) + " tiles in shared memory",
                                    "tiled_gemm_kernel<" + std::to_string(tile) + ">", 2.0 * M * N * K,
                                    [&, tile] { tiled_gemm(A.data(), B.data(), C.data(), M, N, K, tile); }});
    }
    return tutorial::profile::run(argc, argv, chapter);
}
