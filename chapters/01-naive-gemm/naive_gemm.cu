// Chapter 1: naive GEMM, C = A·B with one thread per element of C.
//
// Read README.md in this folder first. Then work through the TODO(chapter1) markers
// below, top to bottom, and run `make chapter1 test` after each one.
//
// Every matrix is row-major: element (r, c) of a matrix with `cols` columns is at
// index r * cols + c.
#include "naive_gemm.h"

#include "cuda_check.h"
#include "gemm/gemm_reference.h"

// One thread computes one element, C(row, col) = sum over k of A(row, k) * B(k, col).
__global__ void naive_gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO(chapter1): compute this thread's `row` and `col` in C from blockIdx, blockDim
    //   and threadIdx. Let x run along the columns: neighbouring threads of a warp then
    //   read neighbouring elements of B and write neighbouring elements of C.

    // TODO(chapter1): the grid is rounded up to whole blocks, so some threads fall
    //   outside C. They must return before touching memory.

    // TODO(chapter1): sum A(row, k) * B(k, col) over k = 0 .. K-1 in a float register,
    //   then store the sum in C(row, col).
}

tutorial::LaunchConfig naive_gemm_launch_config(int M, int N) {
    // TODO(chapter1): a kNaiveGemmBlock x kNaiveGemmBlock block, and a grid with enough
    //   blocks to cover all N columns (grid.x) and all M rows (grid.y). Use
    //   tutorial::ceil_div: a plain division drops the last, partial block.
    (void)M;
    (void)N;
    return tutorial::LaunchConfig{dim3(1, 1), dim3(1, 1)};
}

void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("naive_gemm", A, B, C, M, N, K);
    const tutorial::LaunchConfig launch = naive_gemm_launch_config(M, N);
    naive_gemm_kernel<<<launch.grid, launch.block>>>(A, B, C, M, N, K);
    CUDA_CHECK_KERNEL("naive_gemm_kernel");
}
