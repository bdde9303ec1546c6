// Chapter 2 tests: tiled GEMM in shared memory.  Run them with `make chapter2 test`.
#include "tiled_gemm.h"

#include "catch.h"
#include "expect.h"
#include "gemm/gemm_cases.h"

using tutorial::GemmShape;

TEST_CASE("tiled_gemm_launch_config gives one tile x tile block per tile of C", "[chapter2]") {
    const int tile = GENERATE(16, 32);
    INFO("tile " << tile);
    tutorial::check_launch_covers([tile](int M, int N) { return tiled_gemm_launch_config(M, N, tile); }, tile);
}

TEST_CASE("tiled_gemm matches the CPU reference for every shape, at TILE 16 and 32", "[chapter2][gpu]") {
    // One report for all the shapes at both tiles: the first failing one in full, then a
    // line each, then what the failing shapes share.
    REQUIRE_SWEEP(tutorial::sweep_gemm_shapes("tiled_gemm", 2, {16, 32}, "tile", [](int tile) {
        return tutorial::GemmFunction([tile](const float* A, const float* B, float* C, int M, int N, int K) {
            tiled_gemm(A, B, C, M, N, K, tile);
        });
    }));
}

TEST_CASE("tiled_gemm uses TILE 16 when none is named", "[chapter2][gpu]") {
    REQUIRE(kDefaultTile == 16);
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) { tiled_gemm(A, B, C, M, N, K); };
    const GemmShape shape{33, 35, 37};
    tutorial::ShapeSweep sweep("tiled_gemm with no tile named", tutorial::default_sweep_options(2));
    sweep.run("M=33 N=35 K=37", {}, [&] { return tutorial::run_gemm_case(gemm, shape, kDefaultTile); },
              tutorial::gemm_ownership(shape, kDefaultTile));
    REQUIRE_SWEEP(sweep);
}

TEST_CASE("tiled_gemm rejects bad sizes, null pointers and tiles other than 16 and 32", "[chapter2]") {
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) { tiled_gemm(A, B, C, M, N, K); };
    tutorial::check_gemm_rejects_bad_arguments(gemm, "tiled_gemm");
    float dummy = 0.0f;
    REQUIRE_THROWS_WITH(tiled_gemm(&dummy, &dummy, &dummy, 4, 4, 4, 8),
                        "tiled_gemm: argument tile must be 16 or 32, got 8");
}

TEST_CASE("tiled_gemm reports a failed launch as a CudaError naming the kernel", "[chapter2][gpu]") {
    const auto gemm = [](const float* A, const float* B, float* C, int M, int N, int K) { tiled_gemm(A, B, C, M, N, K); };
    tutorial::check_too_many_block_rows_is_a_cuda_error(gemm, kDefaultTile, "tiled_gemm_kernel", "tiled_gemm.cu");
}
