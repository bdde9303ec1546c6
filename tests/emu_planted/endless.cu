// Kernels that never end, for the CPU backend's time limit (tests/emu.cpp).
#include "planted.h"

#include "cuda_check.h"

namespace planted {
namespace {

// Chapter 1's loop with `k += 0`: it reads global memory forever.
__global__ void endless_sum_planted(const float* in, float* out, int n) {
    float sum = 0.0f;
    for (int k = 0; k < n; k += 0) sum += in[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// A loop around a barrier whose counter never advances.
__global__ void endless_barrier_planted(float* out, int n) {
    int k = 0;
    while (k < n) {
        __syncthreads();
        k += 0;
    }
    out[threadIdx.x] = k;
}

// A loop that touches no checked memory: only the watchdog's last resort stops it.
__global__ void endless_without_access_planted(int* out, int n) {
    volatile int k = 0;
    while (k < n) k = k + 0;
    out[threadIdx.x] = k;
}

}  // namespace

void endless_sum(const float* in, float* out, int n, int blocks, int block) {
    endless_sum_planted<<<blocks, block>>>(in, out, n);
    CUDA_CHECK_KERNEL("endless_sum_planted");
}

void endless_barrier(float* out, int n) {
    endless_barrier_planted<<<1, 64>>>(out, n);
    CUDA_CHECK_KERNEL("endless_barrier_planted");
}

void endless_without_access(int* out, int n) {
    endless_without_access_planted<<<1, 32>>>(out, n);
    CUDA_CHECK_KERNEL("endless_without_access_planted");
}

}  // namespace planted
