// Chapter 8 demo: run each step on a size that is not a multiple of the tile (M and N
// multiples of 4, so the tensor maps of 8c take it too), and print how many bytes each
// block's stages hold in shared memory and how many phases a block walks through (8a to
// 8c; 8d's blocks are 64 x 128 tiles of C, 16 along K a phase).
// Run it with `make chapter8 run`.
#include "async_copy_gemm.h"
#include "tutorial_chapter.h"

#include "demo.h"
#include "gemm/gemm_operands.h"
#include "random.h"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

int main() {
    return tutorial::run_demo([] {
        tutorial::GemmOperands gemm(100, 68, 132, tutorial::run_seed());
        const int M = gemm.M, N = gemm.N, K = gemm.K;
        const tutorial::LaunchConfig launch = async_gemm_launch_config(M, N);
        const int phases = (K + kAsyncTile - 1) / kAsyncTile;
        const int stage_bytes = 2 * kAsyncTile * kAsyncTile * static_cast<int>(sizeof(float));

        std::printf("C(%d x %d) = A(%d x %d) * B(%d x %d): %u x %u blocks of %d x %d threads, %d phases each;\n"
                    "one stage (a tile of A and one of B) is %d bytes of shared memory.\n",
                    M, N, M, K, K, N, launch.grid.x, launch.grid.y, kAsyncTile, kAsyncTile, phases, stage_bytes);

        struct Step {
            std::string name;
            int stages;
            int stage_bytes;
            tutorial::GemmFunction gemm;
        };
        std::vector<Step> steps{{STEP("a") " two stages, __pipeline_memcpy_async", 2, stage_bytes, async_double_buffered_gemm}};
        for (int stages = kMinPipelineStages; stages <= kMaxPipelineStages; ++stages) {
            steps.push_back({STEP("b") " cuda::pipeline, " + std::to_string(stages) + " stage(s)", stages, stage_bytes,
                             [stages](const float* A, const float* B, float* C, int rows, int cols, int depth) {
                                 async_pipeline_gemm(A, B, C, rows, cols, depth, stages);
                             }});
        }
        steps.push_back({STEP("c") " Tensor Memory Accelerator", kTmaStages, stage_bytes, tma_gemm});
        // 8d's stage: A's 64 x 16 tile with rows padded to 20 floats, and B's 16 x 128 tile.
        const int warptile_stage_bytes =
            (kWarpPipeBM * (kWarpPipeBK + 4) + kWarpPipeBK * kWarpPipeBN) * static_cast<int>(sizeof(float));
        steps.push_back({STEP("d") " warp tiles, cp.async pipeline", kWarpPipeStages, warptile_stage_bytes, async_warptile_gemm});

        bool all_right = true;
        for (const Step& step : steps) {
            tutorial::ComparisonReport report;
            try {
                report = gemm.run_checked(step.gemm, kAsyncTile);
            } catch (const std::runtime_error& refused) {  // an older GPU, for 8c
                std::printf("%-40s not run: %s\n", step.name.c_str(), refused.what());
                continue;
            }
            std::printf("%-40s %6d bytes of stages per block: %s\n", step.name.c_str(), step.stages * step.stage_bytes,
                        report.ok() ? "C is right" : "C is WRONG");
            if (!report.ok()) {
                std::printf("%s", report.text.c_str());
                all_right = false;
            }
        }
        return all_right;
    });
}
