// Chapter 7 demo: run each step on a size that is not a multiple of any block tile, and
// print what each thread keeps in registers: how many elements of C it computes, and how
// many floats it reads from shared memory for each multiply-add (chapter 2 read two).
// Run it with `make chapter7 run`.
#include "register_tiled_gemm.h"
#include "tutorial_chapter.h"

#include "demo.h"
#include "gemm/gemm_operands.h"
#include "random.h"

#include <cstdio>
#include <string>
#include <vector>

int main() {
    return tutorial::run_demo([] {
        tutorial::GemmOperands gemm(100, 68, 132, tutorial::run_seed());
        std::printf("C(%d x %d) = A(%d x %d) * B(%d x %d): every block tile overhangs the matrix.\n", gemm.M, gemm.N,
                    gemm.M, gemm.K, gemm.K, gemm.N);

        struct Step {
            std::string name;
            int block_rows, block_cols;  // the block's tile of C
            int rows, cols;              // the thread's part of it
            tutorial::GemmFunction gemm;
        };
        // 7d: which of its two tilings this size gets (the small one for fewer tiles than
        // the GPU holds at once), and its warps' parts: 8 x 4 elements a thread in each of
        // 1 x 2 (large) or 1 x 1 (small) sub-tiles.
        const bool large = warptile_tiling_for(gemm.M, gemm.N) == WarptileTiling::large;
        const int warptile = large ? kWarptile_BM : kWarptileSmall;
        const std::vector<Step> steps{
            {STEP("a") " one column of 8 a thread", kTile1D_BM, kTile1D_BN, kTile1D_TM, 1, register_tiled_gemm_1d},
            {STEP("b") " an 8 x 8 block a thread", kTile2D_BM, kTile2D_BN, kTile2D_TM, kTile2D_TN, register_tiled_gemm_2d},
            {STEP("c") " 8 x 8, float4 loads", kTile2D_BM, kTile2D_BN, kTile2D_TM, kTile2D_TN,
             register_tiled_gemm_vectorized},
            {std::string(STEP("d") " warp tiles (") + (large ? "large" : "small") + " tiling)", warptile, warptile, 8,
             large ? 8 : 4, register_tiled_gemm_warptiled},
        };

        bool all_right = true;
        for (const Step& step : steps) {
            const tutorial::ComparisonReport report = gemm.run_checked(step.gemm, step.block_rows);
            // Per step along K a thread reads its `rows` values of A and `cols` of B from
            // shared memory and makes rows * cols multiply-adds.
            const double reads_per_fma = static_cast<double>(step.rows + step.cols) / (step.rows * step.cols);
            std::printf("%-34s %3d x %3d tile a block, %2d elements a thread, %.2f shared reads a multiply-add: %s\n",
                        step.name.c_str(), step.block_rows, step.block_cols, step.rows * step.cols, reads_per_fma,
                        report.ok() ? "C is right" : "C is WRONG");
            if (!report.ok()) {
                std::printf("%s", report.text.c_str());
                all_right = false;
            }
        }
        return all_right;
    });
}
