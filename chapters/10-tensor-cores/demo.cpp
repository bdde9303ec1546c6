// Chapter 10 demo: run each step on a size that is not a multiple of the 128 × 128 × 64 tile,
// check it against the CPU reference of the BF16-rounded inputs, and show what the rounding
// costs: how far C lies from the product of the unrounded floats, next to the error the
// FP32 accumulation alone may add. Run it with `make chapter10 run`.
#include "tensor_core_gemm.h"
#include "tutorial_chapter.h"

#include "demo.h"
#include "gemm/bf16_inputs.h"
#include "gemm/gemm_operands.h"
#include "gemm/gemm_reference.h"
#include "random.h"
#include "reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

int main() {
    return tutorial::run_demo([] {
        tutorial::GemmOperands gemm(100, 68, 132, tutorial::run_seed(), tutorial::InputPrecision::bf16);
        const int M = gemm.M, N = gemm.N, K = gemm.K;
        const tutorial::LaunchConfig launch = mma_gemm_launch_config(M, N);
        std::printf("C(%d x %d) = A(%d x %d) * B(%d x %d), A and B rounded to BF16: %u x %u blocks of %d threads,\n"
                    "%d steps of %d along K each, %d mma.sync of 16 x 8 x 16 per warp and step.\n",
                    M, N, M, K, K, N, launch.grid.x, launch.grid.y, kMmaThreads, (K + kMmaBlockK - 1) / kMmaBlockK,
                    kMmaBlockK, (kMmaWarpM / 16) * (kMmaWarpN / 8) * (kMmaBlockK / 16));

        // The product of the floats as they were, before rounding: what FP32 inputs would give.
        const tutorial::ExpectedOutput unrounded = tutorial::gemm_reference(gemm.A.download(), gemm.B.download(), M, N, K);

        struct Step {
            const char* name;
            tutorial::Bf16GemmFunction gemm;
        };
        const Step steps[] = {{STEP("a") " row-major tiles", mma_gemm_row_major},
                              {STEP("a") " swizzled tiles", mma_gemm_swizzled},
                              {STEP("b") " 3-stage cp.async pipeline", mma_pipeline_gemm}};
        bool all_right = true;
        for (const Step& step : steps) {
            tutorial::ComparisonReport report;
            try {
                report = gemm.run_checked(tutorial::with_bf16_inputs(step.gemm), kMmaBlockM);
            } catch (const std::runtime_error& refused) {  // a GPU older than compute capability 8.0
                std::printf("%-32s not run: %s\n", step.name, refused.what());
                continue;
            }
            // How far C is from the unrounded product, in units of Σ|a·b| of each element (the
            // reference's tolerance divided by γ_K): the rounding of the inputs, against the
            // accumulation's bound, 2 γ_K (gemm/gemm_operands.h says why twice).
            const std::vector<float> C = gemm.C.download();
            const double gamma = tutorial::float_sum_error_factor(K);
            double worst = 0.0;
            for (std::size_t i = 0; i < C.size(); ++i) {
                const double magnitude = unrounded.tolerance[i] / gamma;
                if (magnitude > 0) worst = std::max(worst, std::fabs(C[i] - unrounded.value[i]) / magnitude);
            }
            std::printf("%-32s %s; largest |C - product of the unrounded floats| = %.2e x sum|a b|"
                        " (the tests allow the FP32 sums %.2e)\n",
                        step.name, report.ok() ? "C is right" : "C is WRONG", worst, 2.0 * gamma);
            if (!report.ok()) {
                std::printf("%s", report.text.c_str());
                all_right = false;
            }
        }
        std::printf("BF16 keeps 8 significant bits: each input moves by up to 2^-9 = %.2e of itself, which the sums\n"
                    "carry into C; the tensor cores trade that for their speed.\n", std::ldexp(1.0, -9));
        return all_right;
    });
}
