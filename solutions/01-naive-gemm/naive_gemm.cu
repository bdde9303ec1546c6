// Chapter 1: naive GEMM, C = A·B with one thread per element of C.
//
// Reference solution.
//
// Every matrix is row-major: element (r, c) of a matrix with `cols` columns is at
// index r * cols + c.
#include "naive_gemm.h"

#include "cuda_check.h"
#include "gemm/gemm_reference.h"

// One thread computes one element, C(row, col) = sum over k of A(row, k) * B(k, col).
// BEGIN SOLUTION
// Each multiply-add loads one float of A and one of B from global memory: that ratio,
// one load per flop, is what chapter 2 attacks.
// END SOLUTION
__global__ void naive_gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // BEGIN SOLUTION: compute this thread's `row` and `col` in C from blockIdx, blockDim
    //   and threadIdx. Let x run along the columns: neighbouring threads of a warp then
    //   read neighbouring elements of B and write neighbouring elements of C.
    // x along the columns: a warp's 32 threads read 32 consecutive floats of a row of
    // B and write 32 consecutive floats of C, which the hardware coalesces; they all
    // read the same A(row, k), which is one broadcast.
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    // END SOLUTION

    // BEGIN SOLUTION: the grid is rounded up to whole blocks, so some threads fall
    //   outside C. They must return before touching memory.
    if (row >= M || col >= N) {
        return;
    }
    // END SOLUTION

    // BEGIN SOLUTION: sum A(row, k) * B(k, col) over k = 0 .. K-1 in a float register,
    //   then store the sum in C(row, col).
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
        sum += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = sum;
    // END SOLUTION
}

tutorial::LaunchConfig naive_gemm_launch_config(int M, int N) {
    // BEGIN SOLUTION: a kNaiveGemmBlock x kNaiveGemmBlock block, and a grid with enough
    //   blocks to cover all N columns (grid.x) and all M rows (grid.y). Use
    //   tutorial::ceil_div: a plain division drops the last, partial block.
    //| (void)M;
    //| (void)N;
    //| return tutorial::LaunchConfig{dim3(1, 1), dim3(1, 1)};
    const dim3 block(kNaiveGemmBlock, kNaiveGemmBlock);
    const dim3 grid(tutorial::ceil_div(N, kNaiveGemmBlock), tutorial::ceil_div(M, kNaiveGemmBlock));
    return tutorial::LaunchConfig{grid, block};
    // END SOLUTION
}

void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("naive_gemm", A, B, C, M, N, K);
    const tutorial::LaunchConfig launch = naive_gemm_launch_config(M, N);
    naive_gemm_kernel<<<launch.grid, launch.block>>>(A, B, C, M, N, K);
    CUDA_CHECK_KERNEL("naive_gemm_kernel");
}
