// Chapter 1 solved with what legitimate student code uses: helper functions with external
// linkage, templates, <cmath>, std::min and std::max, std::vector, a __shared__ array,
// printf in a kernel, a static local, cudaFuncSetAttribute. make check grades it like a
// student's file (tools/check-grading.sh): it must score 100%.
#include "naive_gemm.h"

#include "cuda_check.h"
#include "gemm/gemm_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

template <typename T>
__device__ T multiply_add(T a, T b, T c) {
    return fmaf(a, b, c);
}

__device__ int flat_index(int row, int col, int cols) { return row * cols + col; }

__global__ void naive_gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float partial[kNaiveGemmBlock][kNaiveGemmBlock];
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (K < 0) {
        printf("block (%d, %d): K is negative\n", blockIdx.x, blockIdx.y);
    }
    if (row >= M || col >= N) {
        return;
    }
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
        sum = multiply_add(A[flat_index(row, k, K)], B[flat_index(k, col, N)], sum);
    }
    partial[threadIdx.y][threadIdx.x] = std::fabs(sum) >= 0.0f ? sum : sum;  // <cmath> in a kernel
    C[flat_index(row, col, N)] = partial[threadIdx.y][threadIdx.x];
}

int blocks_to_cover(int elements, int block) { return std::max(1, (elements + block - 1) / block); }

tutorial::LaunchConfig naive_gemm_launch_config(int M, int N) {
    const dim3 block(kNaiveGemmBlock, kNaiveGemmBlock);
    const dim3 grid(blocks_to_cover(N, kNaiveGemmBlock), blocks_to_cover(M, kNaiveGemmBlock));
    return tutorial::LaunchConfig{grid, block};
}

void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("naive_gemm", A, B, C, M, N, K);
    static const int attribute_set = [] {
        CUDA_CHECK(cudaFuncSetAttribute(naive_gemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 0));
        return 1;
    }();
    (void)attribute_set;
    std::vector<int> sizes = {M, N, K};
    (void)*std::max_element(sizes.begin(), sizes.end());
    const tutorial::LaunchConfig launch = naive_gemm_launch_config(M, N);
    naive_gemm_kernel<<<launch.grid, launch.block>>>(A, B, C, M, N, K);
    CUDA_CHECK_KERNEL("naive_gemm_kernel");
}
