// whole file
// Solves on the host without a copy: the wrapper reads A and B and writes C through the
// device pointers. On a GPU host code cannot reach device memory (a segmentation fault in
// host code); the CPU backend keeps its device memory closed to host code the same way, and
// names the access.
// expect: crashed \(SIGSEGV
// expect (emu): host code read device memory at 0x[0-9a-f]+, 0 bytes into a cudaMalloc buffer
#include "naive_gemm.h"

#include "cuda_check.h"
#include "gemm/gemm_reference.h"

__global__ void naive_gemm_kernel(const float*, const float*, float*, int, int, int) {}

tutorial::LaunchConfig naive_gemm_launch_config(int M, int N) {
    const dim3 block(kNaiveGemmBlock, kNaiveGemmBlock);
    return tutorial::LaunchConfig{dim3(tutorial::ceil_div(N, kNaiveGemmBlock), tutorial::ceil_div(M, kNaiveGemmBlock)), block};
}

void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("naive_gemm", A, B, C, M, N, K);
    const tutorial::LaunchConfig launch = naive_gemm_launch_config(M, N);
    naive_gemm_kernel<<<launch.grid, launch.block>>>(A, B, C, M, N, K);
    CUDA_CHECK_KERNEL("naive_gemm_kernel");
    cudaDeviceSynchronize();
    for (int row = 0; row < M; ++row) {
        for (int col = 0; col < N; ++col) {
            float sum = 0.0f;
            for (int k = 0; k < K; ++k) sum += A[static_cast<size_t>(row) * K + k] * B[static_cast<size_t>(k) * N + col];
            C[static_cast<size_t>(row) * N + col] = sum;
        }
    }
}
