// Planted barrier bugs: barriers that not every thread of the block reaches, and a
// write race whose result shows the thread order.
#include "planted.h"

#include "cuda_check.h"

namespace planted {
namespace {

__global__ void barrier_in_branch_planted(float* out) {
    if (threadIdx.x < 16) __syncthreads();
    out[threadIdx.x] = threadIdx.x;
}

__global__ void barriers_by_parity_planted(float* out) {
    if (threadIdx.x % 2 == 0) {
        __syncthreads();  // the even threads'
    } else {
        __syncthreads();  // the odd threads'
    }
    out[threadIdx.x] = threadIdx.x;
}

__global__ void return_before_barrier_planted(float* out, int n) {
    __shared__ float values[64];
    const int i = threadIdx.x;
    if (i >= n) return;
    values[i] = i;
    __syncthreads();
    out[i] = values[(i + 1) % n];
}

__global__ void last_writer_wins_planted(unsigned* out) {
    __shared__ unsigned slot;
    slot = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = slot;
}

}  // namespace

void barrier_in_branch(float* out) {
    barrier_in_branch_planted<<<1, 64>>>(out);
    CUDA_CHECK_KERNEL("barrier_in_branch_planted");
}

void barriers_by_parity(float* out) {
    barriers_by_parity_planted<<<1, 64>>>(out);
    CUDA_CHECK_KERNEL("barriers_by_parity_planted");
}

void return_before_barrier(float* out, int n) {
    return_before_barrier_planted<<<1, 64>>>(out, n);
    CUDA_CHECK_KERNEL("return_before_barrier_planted");
}

void last_writer_wins(unsigned* out, unsigned threads) {
    last_writer_wins_planted<<<1, threads>>>(out);
    CUDA_CHECK_KERNEL("last_writer_wins_planted");
}

}  // namespace planted
