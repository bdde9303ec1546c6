// Chapter 2 demo: run your tiled_gemm at TILE 16 and 32 on a size that is not a multiple
// of either, and print what tiling does to the global-memory traffic.
// Run it with `make chapter2 run`.
#include "tiled_gemm.h"

#include "demo.h"
#include "gemm/gemm_operands.h"
#include "random.h"

#include <cstdio>

int main() {
    return tutorial::run_demo([] {
        tutorial::GemmOperands gemm(100, 70, 45, tutorial::run_seed());
        const int M = gemm.M, N = gemm.N, K = gemm.K;

        std::printf("C(%d x %d) = A(%d x %d) * B(%d x %d)\n", M, N, M, K, K, N);
        std::printf("naive kernel (chapter 1): %.0f floats loaded from global memory\n", 2.0 * M * N * K);
        bool all_right = true;
        for (int tile : {16, 32}) {
            const tutorial::ComparisonReport report = gemm.run_checked(
                [tile](const float* A, const float* B, float* C, int rows, int cols, int depth) {
                    tiled_gemm(A, B, C, rows, cols, depth, tile);
                },
                tile);
            const tutorial::LaunchConfig launch = tiled_gemm_launch_config(M, N, tile);
            const long long blocks = static_cast<long long>(launch.grid.x) * launch.grid.y;
            const long long phases = (K + tile - 1) / tile;
            // Every block loads a tile of A and one of B per phase, padding included.
            const double loads = 2.0 * blocks * phases * tile * tile;
            std::printf("TILE %2d: %u x %u blocks, %lld phases each, %d bytes of shared memory per block, "
                        "%.0f floats loaded (%.1fx fewer): %s\n",
                        tile, launch.grid.x, launch.grid.y, phases, 2 * tile * tile * 4, loads,
                        2.0 * M * N * K / loads, report.ok() ? "C is right" : "C is WRONG");
            if (!report.ok()) {
                std::printf("%s", report.text.c_str());
                all_right = false;
            }
        }
        return all_right;
    });
}
