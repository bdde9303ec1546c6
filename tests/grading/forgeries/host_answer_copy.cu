// whole file
// Solves on the host: the kernel stays empty, the wrapper copies A and B back with
// cudaMemcpy, multiplies on the CPU and copies C in. A GPU run alone cannot tell this C
// from a kernel's; the object check refuses the copies.
// expect: calls cudaMemcpy: your exercise's code moves no data between host and device
#include "naive_gemm.h"

#include "cuda_check.h"
#include "gemm/gemm_reference.h"

#include <vector>

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
    std::vector<float> a(static_cast<size_t>(M) * K), b(static_cast<size_t>(K) * N), c(static_cast<size_t>(M) * N);
    cudaMemcpy(a.data(), A, a.size() * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(b.data(), B, b.size() * sizeof(float), cudaMemcpyDeviceToHost);
    for (int row = 0; row < M; ++row) {
        for (int col = 0; col < N; ++col) {
            float sum = 0.0f;
            for (int k = 0; k < K; ++k) sum += a[static_cast<size_t>(row) * K + k] * b[static_cast<size_t>(k) * N + col];
            c[static_cast<size_t>(row) * N + col] = sum;
        }
    }
    cudaMemcpy(C, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
}
