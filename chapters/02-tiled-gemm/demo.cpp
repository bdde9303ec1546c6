// Chapter 2 demo: run your tiled_gemm at TILE 16 and 32 on a size that is not a multiple
// of either, and print what tiling does to the global-memory traffic.
// Run it with `make chapter2 run`.
#include "tiled_gemm.h"

#include "compare.h"
#include "demo.h"
#include "device_buffer.h"
#include "random.h"
#include "gemm/gemm_reference.h"

#include <cstdio>
#include <vector>

int main() {
    return tutorial::run_demo([] {
        const int M = 100, N = 70, K = 45;
        const std::vector<float> A = tutorial::random_floats(M * K, tutorial::run_seed());
        const std::vector<float> B = tutorial::random_floats(K * N, tutorial::run_seed() + 1);
        const tutorial::ExpectedOutput expected = tutorial::gemm_reference(A, B, M, N, K);
        tutorial::DeviceBuffer<float> dA(A), dB(B), dC(M * N);

        std::printf("C(%d x %d) = A(%d x %d) * B(%d x %d)\n", M, N, M, K, K, N);
        std::printf("naive kernel (chapter 1): %.0f floats loaded from global memory\n", 2.0 * M * N * K);
        bool all_right = true;
        for (int tile : {16, 32}) {
            dC.poison();
            tiled_gemm(dA.data(), dB.data(), dC.data(), M, N, K, tile);
            const tutorial::ComparisonReport report =
                tutorial::compare_gemm_output(dC.download(), expected, M, N, tile);
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
