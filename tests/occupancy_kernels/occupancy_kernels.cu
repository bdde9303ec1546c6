// Kernels of known resources for the occupancy API's tests: see occupancy_kernels.h.
// They are never launched: the tests ask how many of their blocks fit on an SM.
#include "occupancy_kernels.h"

namespace occupancy_kernels {

__global__ void light(float* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<float>(threadIdx.x); }

__global__ void static_shared(float* out) {
    __shared__ float tile[10 * 1024];
    for (int i = threadIdx.x; i < 10 * 1024; i += blockDim.x) tile[i] = static_cast<float>(i);
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x * 37) % (10 * 1024)];
}

__global__ void __launch_bounds__(256, 2) register_heavy(const float* in, float* out, int n) {
    constexpr int kLive = 192;
    float v[kLive];
#pragma unroll
    for (int i = 0; i < kLive; ++i) v[i] = in[threadIdx.x + i * blockDim.x];
    for (int k = 0; k < n; ++k) {
#pragma unroll
        for (int i = 0; i < kLive; ++i) v[i] = v[i] * v[(i + 1) % kLive] + in[k];
    }
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < kLive; ++i) sum += v[i];
    out[threadIdx.x] = sum;
}

template <int Words>
__global__ void templated_shared(float* out) {
    __shared__ float tile[Words];
    for (int i = threadIdx.x; i < Words; i += blockDim.x) tile[i] = static_cast<float>(i);
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x * 37) % Words];
}

const void* templated_shared(int words) {
    switch (words) {
        case 1024: return reinterpret_cast<const void*>(templated_shared<1024>);
        case 8192: return reinterpret_cast<const void*>(templated_shared<8192>);
    }
    return nullptr;
}

cudaError_t templated_shared_blocks_per_sm(int* blocks, int words, int threads) {
    switch (words) {
        case 1024: return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, templated_shared<1024>, threads, 0);
        case 8192: return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, templated_shared<8192>, threads, 0);
    }
    return cudaErrorInvalidValue;
}

__global__ void dynamic_shared(float* out) {
    extern __shared__ float cache[];
    cache[threadIdx.x] = static_cast<float>(threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = cache[blockDim.x - 1 - threadIdx.x];
}

}  // namespace occupancy_kernels
