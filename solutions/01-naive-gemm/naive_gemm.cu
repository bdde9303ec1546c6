// Chapter 1, reference solution: naive GEMM, C = A·B with one thread per element of C.
//
// Every matrix is row-major: element (r, c) of a matrix with `cols` columns is at
// index r * cols + c.
#include "naive_gemm.h"

#include "cuda_check.h"
#include "validate.h"

// One thread computes one element, C(row, col) = sum over k of A(row, k) * B(k, col).
// Each multiply-add loads one float of A and one of B from global memory: that ratio,
// one load per flop, is what chapter 2 attacks.
__global__ void naive_gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // x along the columns: a warp's 32 threads read 32 consecutive floats of a row of
    // B and write 32 consecutive floats of C, which the hardware coalesces; they all
    // read the same A(row, k), which is one broadcast.
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) {
        return;
    }
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
        sum += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = sum;
}

tutorial::LaunchConfig naive_gemm_launch_config(int M, int N) {
    const dim3 block(kNaiveGemmBlock, kNaiveGemmBlock);
    const dim3 grid(tutorial::ceil_div(N, kNaiveGemmBlock), tutorial::ceil_div(M, kNaiveGemmBlock));
    return tutorial::LaunchConfig{grid, block};
}

void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("naive_gemm", A, B, C, M, N, K);
    const tutorial::LaunchConfig launch = naive_gemm_launch_config(M, N);
    naive_gemm_kernel<<<launch.grid, launch.block>>>(A, B, C, M, N, K);
    CUDA_CHECK_KERNEL("naive_gemm_kernel");
}
