// Planted bugs in GEMM kernels: a missing barrier (each one), a missing bounds check.
#include "planted.h"

#include "cuda_check.h"
#include "launch_config.h"

namespace planted {
namespace {

constexpr int kTile = 16;

template <GemmBarriers BARRIERS>
__global__ void tiled_gemm_planted(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float a_tile[kTile][kTile];
    __shared__ float b_tile[kTile][kTile];
    const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
    float sum = 0.0f;
    for (int phase = 0; phase * kTile < K; ++phase) {
        const int a_col = phase * kTile + threadIdx.x, b_row = phase * kTile + threadIdx.y;
        a_tile[threadIdx.y][threadIdx.x] = row < M && a_col < K ? A[row * K + a_col] : 0.0f;
        b_tile[threadIdx.y][threadIdx.x] = b_row < K && col < N ? B[b_row * N + col] : 0.0f;
        if (BARRIERS != GemmBarriers::no_first) __syncthreads();  // the tiles are complete
        for (int k = 0; k < kTile; ++k) sum += a_tile[threadIdx.y][k] * b_tile[k][threadIdx.x];
        if (BARRIERS != GemmBarriers::no_second) __syncthreads();  // everyone is done with them
    }
    if (row < M && col < N) C[row * N + col] = sum;
}

template <bool BOUNDS_CHECK>
__global__ void naive_gemm_planted(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (BOUNDS_CHECK && (row >= M || col >= N)) return;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
}

// The k loop ends at `stop` when that comes before K: products with k >= stop never added.
__global__ void gemm_k_stops_at_planted(const float* A, const float* B, float* C, int M, int N, int K, int stop) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float sum = 0.0f;
    for (int k = 0; k < K && k < stop; ++k) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
}

}  // namespace

void gemm_k_stops_at(const float* A, const float* B, float* C, int M, int N, int K, int stop) {
    const dim3 block(16, 16), grid(tutorial::ceil_div(N, 16), tutorial::ceil_div(M, 16));
    gemm_k_stops_at_planted<<<grid, block>>>(A, B, C, M, N, K, stop);
    CUDA_CHECK_KERNEL("gemm_k_stops_at_planted");
}

void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K, GemmBarriers barriers) {
    const dim3 block(kTile, kTile), grid(tutorial::ceil_div(N, kTile), tutorial::ceil_div(M, kTile));
    switch (barriers) {
        case GemmBarriers::both: tiled_gemm_planted<GemmBarriers::both><<<grid, block>>>(A, B, C, M, N, K); break;
        case GemmBarriers::no_first: tiled_gemm_planted<GemmBarriers::no_first><<<grid, block>>>(A, B, C, M, N, K); break;
        case GemmBarriers::no_second: tiled_gemm_planted<GemmBarriers::no_second><<<grid, block>>>(A, B, C, M, N, K); break;
    }
    CUDA_CHECK_KERNEL("tiled_gemm_planted");
}

void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K, bool bounds_check) {
    const dim3 block(16, 16), grid(tutorial::ceil_div(N, 16), tutorial::ceil_div(M, 16));
    if (bounds_check) {
        naive_gemm_planted<true><<<grid, block>>>(A, B, C, M, N, K);
    } else {
        naive_gemm_planted<false><<<grid, block>>>(A, B, C, M, N, K);
    }
    CUDA_CHECK_KERNEL("naive_gemm_planted");
}

}  // namespace planted
