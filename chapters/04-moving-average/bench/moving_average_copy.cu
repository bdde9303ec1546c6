// The benchmark's copy-only row: 4e's chunks, loads, ring and stores, without the
// prefix sums. The structure is 4e's as the reference solution writes it
// (solutions/04-moving-average), kept in step with it by hand.
#include "bench/moving_average_copy.h"

#include "cuda_check.h"
#include "moving_average.h"
#include "moving_average_reference.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

constexpr int kChunk = kMovingAverageBlock * kPrefixItems;  // inputs per chunk: 2048, 4e's kStreamChunk
constexpr int kRing = 2 * kChunk;                            // 4e's ring of positions

// 4e's ring slots: modulo kRing, one unused double after every 8.
__device__ __forceinline__ int ring_slot(long long position) {
    const int slot = static_cast<int>(position & (kRing - 1));
    return slot + (slot >> 3);
}
constexpr int kRingDoubles = kRing + kRing / 8;

// 4e's load_items: the thread's kPrefixItems inputs from `start`, 0 past the end; two float4
// loads when VECTOR (start a multiple of 4 floats from a 16-byte-aligned input).
__device__ __forceinline__ void load_items(const float* input, int size, long long start, bool vector,
                                           float (&x)[kPrefixItems]) {
    if (vector && start + kPrefixItems <= size) {
#pragma unroll
        for (int q = 0; q < kPrefixItems; q += 4) {
            const float4 v = *reinterpret_cast<const float4*>(&input[start + q]);
            x[q] = v.x, x[q + 1] = v.y, x[q + 2] = v.z, x[q + 3] = v.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < kPrefixItems; ++k) x[k] = start + k < size ? input[start + k] : 0.0f;
    }
}

// 4e's rounds without the scan: each input goes into the ring as it is (a double, as 4e's
// prefix sums), and output j is the input at the end of its window, read back from the ring.
__global__ void __launch_bounds__(kMovingAverageBlock)
    moving_average_copy_kernel(const float* input, float* output, int size, int window, bool vector_input,
                               bool vector_output) {
    __shared__ double ring[kRingDoubles];
    const long long first = static_cast<long long>(blockIdx.x) * kStreamSpan;
    const long long remaining = static_cast<long long>(size - window + 1) - first;
    const int outputs = static_cast<int>(remaining < kStreamSpan ? remaining : kStreamSpan);
    const int inputs = outputs + window - 1;
    float next[kPrefixItems], after[kPrefixItems];
    load_items(input, size, first + threadIdx.x * kPrefixItems, vector_input, next);
    if (kChunk < inputs) load_items(input, size, first + threadIdx.x * kPrefixItems + kChunk, vector_input, after);
    for (int base = 0; base < outputs + kChunk; base += kChunk) {
        if (base < inputs) {
            const int mine = base + threadIdx.x * kPrefixItems;
            float x[kPrefixItems];
#pragma unroll
            for (int k = 0; k < kPrefixItems; ++k) x[k] = next[k], next[k] = after[k];
            if (base + 2 * kChunk < inputs) load_items(input, size, first + mine + 2 * kChunk, vector_input, after);
#pragma unroll
            for (int k = 0; k < kPrefixItems; ++k) ring[ring_slot(mine + k)] = x[k];
        }
        __syncthreads();
        if (base >= kChunk) {
            const int j0 = base - kChunk + threadIdx.x * kPrefixItems;
            float result[kPrefixItems];
#pragma unroll
            for (int k = 0; k < kPrefixItems; ++k) result[k] = static_cast<float>(ring[ring_slot(j0 + k + window - 1)]);
            if (vector_output && j0 + kPrefixItems <= outputs) {
#pragma unroll
                for (int q = 0; q < kPrefixItems; q += 4) {
                    *reinterpret_cast<float4*>(&output[first + j0 + q]) =
                        make_float4(result[q], result[q + 1], result[q + 2], result[q + 3]);
                }
            } else {
                for (int k = 0; k < kPrefixItems && j0 + k < outputs; ++k) output[first + j0 + k] = result[k];
            }
        }
        __syncthreads();
    }
}

// 4e's blocks per SM on the H200: its 64 registers a thread, and its shared memory, allow 4
// (Nsight Compute's block limits). This kernel needs fewer registers, so left alone 6 of its
// blocks would share an SM, each streaming its own span: the row would then time another
// data movement than 4e's. Dynamic shared memory that it does not use holds it to 4e's
// count. (Held or not, it measured below 4e itself on the H200, 2026-11-29: 79.5-80.1% of
// copy against 81.3-82.2%; the lesson says what that means.)
constexpr int kBlocksPerSm = 4;

// The dynamic shared memory that leaves room for kBlocksPerSm blocks an SM and no more,
// checked with the occupancy calculator (0 when the kernel already fits no more).
std::size_t occupancy_hold_bytes() {
    static const std::size_t bytes = [] {
        int device = 0, per_sm = 0, reserved = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
        CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
        cudaFuncAttributes attributes{};
        CUDA_CHECK(cudaFuncGetAttributes(&attributes, moving_average_copy_kernel));
        const long long hold = static_cast<long long>(per_sm) / kBlocksPerSm - reserved -
                               static_cast<long long>(attributes.sharedSizeBytes);
        const std::size_t dynamic = hold > 0 ? static_cast<std::size_t>(hold) : 0;
        CUDA_CHECK(cudaFuncSetAttribute(moving_average_copy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(dynamic)));
        int blocks = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, moving_average_copy_kernel,
                                                                 kMovingAverageBlock, dynamic));
        if (blocks > kBlocksPerSm) {
            throw std::runtime_error("moving_average_copy: " + std::to_string(blocks) +
                                     " blocks an SM even with the hold; 4e's row would compare another data movement");
        }
        return dynamic;
    }();
    return bytes;
}

}  // namespace

void moving_average_copy(const float* input, float* output, int size, int window) {
    tutorial::require_moving_average_arguments("moving_average_copy", input, output, size, window);
    const int outputs = size - window + 1;
    const int blocks = static_cast<int>(tutorial::ceil_div(outputs, kStreamSpan));
    const auto aligned = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    moving_average_copy_kernel<<<blocks, kMovingAverageBlock, occupancy_hold_bytes()>>>(
        input, output, size, window, aligned(input), aligned(output));
    CUDA_CHECK_KERNEL("moving_average_copy_kernel");
}
