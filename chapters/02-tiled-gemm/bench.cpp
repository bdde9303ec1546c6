// Chapter 2 benchmark: the tiled GEMM at TILE 16 and 32 against the naive kernel and cuBLAS.
//
// `make chapter2 bench` times your kernel; `make chapter2 bench SOLUTIONS=1` the
// reference. The naive kernel is chapter 1's reference solution, linked in by
// mk/bench.mk whatever the state of your chapter 1, so the speed-up is always over a
// correct baseline. For 1024³ and 4096³ it times cuBLAS SGEMM in pure FP32 (the
// ceiling), the naive kernel, then TILE 16 and TILE 32, then 2c (the Programming Guide's
// kernel on matrix views, block 16), and checks each result against the CPU after timing.
#include "naive_gemm.h"
#include "tutorial_chapter.h"
#include "tiled_gemm.h"

#include "gemm/gemm_benchmark.h"

namespace {
void tiled_16(const float* A, const float* B, float* C, int M, int N, int K) { tiled_gemm(A, B, C, M, N, K, 16); }
void tiled_32(const float* A, const float* B, float* C, int M, int N, int K) { tiled_gemm(A, B, C, M, N, K, 32); }
// 2c on whole matrices (stride == width): the same loads as tiled 16, through views.
void matrix_view_16(const float* A, const float* B, float* C, int M, int N, int K) {
    matrix_view_gemm(Matrix{K, M, K, const_cast<float*>(A)}, Matrix{N, K, N, const_cast<float*>(B)}, Matrix{N, M, N, C});
}
}  // namespace

int main(int argc, char* argv[]) {
    return tutorial::benchmark::run(argc, argv, [](tutorial::benchmark::Session& session) {
        for (int size : {1024, 4096}) {
            tutorial::benchmark::GemmBenchmark gemm(session, size);
            gemm.time_kernel("naive (chapter 1 solution)", naive_gemm, /*is_baseline=*/true);
            gemm.time_kernel("tiled 16", tiled_16);
            gemm.time_kernel("tiled 32", tiled_32);
            gemm.time_kernel("matrix view 16 (" STEP("c") ")", matrix_view_16);
        }
    });
}
