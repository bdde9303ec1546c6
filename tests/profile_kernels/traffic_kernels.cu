// Kernels with known memory traffic, for the profiler's tests (tests/profile.cpp). The
// expected counts are worked out in the tests, from these access patterns.
#include "traffic_kernels.h"

#include "cuda_check.h"

namespace traffic_kernels {

namespace {
constexpr int kBlock = 256;
int blocks_for(int n) { return (n + kBlock - 1) / kBlock; }
}  // namespace

__global__ void gather_float_kernel(const float* in, float* out, int n, int stride, int offset) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i * stride + offset];
    }
}

void gather_float(const float* in, float* out, int n, int stride, int offset) {
    gather_float_kernel<<<blocks_for(n), kBlock>>>(in, out, n, stride, offset);
    CUDA_CHECK_KERNEL("gather_float_kernel");
}

__global__ void copy_bytes_kernel(const unsigned char* in, unsigned char* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}

void copy_bytes(const unsigned char* in, unsigned char* out, int n) {
    copy_bytes_kernel<<<blocks_for(n), kBlock>>>(in, out, n);
    CUDA_CHECK_KERNEL("copy_bytes_kernel");
}

__global__ void copy_float4_kernel(const Float4* in, Float4* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i];
    }
}

void copy_float4(const Float4* in, Float4* out, int n) {
    copy_float4_kernel<<<blocks_for(n), kBlock>>>(in, out, n);
    CUDA_CHECK_KERNEL("copy_float4_kernel");
}

__global__ void broadcast_float_kernel(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[0];
    }
}

void broadcast_float(const float* in, float* out, int n) {
    broadcast_float_kernel<<<blocks_for(n), kBlock>>>(in, out, n);
    CUDA_CHECK_KERNEL("broadcast_float_kernel");
}

__global__ void shared_words_kernel(float* out, int pattern) {
    __shared__ float words[1024];
    const int t = threadIdx.x;
    for (int i = t; i < 1024; i += blockDim.x) {
        words[i] = static_cast<float>(i);
    }
    __syncthreads();
    int index = t;
    if (pattern == 1) index = 2 * t;
    if (pattern == 2) index = 32 * t;
    if (pattern == 3) index = 0;
    out[t] = words[index];
}

void shared_words(float* out, SharedPattern pattern) {
    shared_words_kernel<<<1, 32>>>(out, static_cast<int>(pattern));
    CUDA_CHECK_KERNEL("shared_words_kernel");
}

template <int PAD>
__global__ void transpose_tile_kernel(const float* in, float* out) {
    __shared__ float tile[32][32 + PAD];
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];  // the column read
}

void transpose_tile(const float* in, float* out, int pad) {
    if (pad == 0) {
        transpose_tile_kernel<0><<<1, dim3(32, 32)>>>(in, out);
    } else {
        transpose_tile_kernel<1><<<1, dim3(32, 32)>>>(in, out);
    }
    CUDA_CHECK_KERNEL("transpose_tile_kernel");
}

}  // namespace traffic_kernels
