// The benchmark's copy-only row: 4e's chunks, loads, staging and stores, without the
// prefix sums. The structure is 4e's as the reference solution writes it
// (solutions/04-moving-average), kept in step with it by hand.
#include "bench/moving_average_copy.h"

#include "cuda_check.h"
#include "moving_average.h"
#include "moving_average_reference.h"

#include <cstdint>

namespace {

constexpr int kChunk = kMovingAverageBlock * kPrefixItems;  // inputs per chunk: 2048, 4e's kStreamChunk

// 4e's staged outputs: one unused float after every 32.
__device__ __forceinline__ int stage_slot(int i) { return i + (i >> 5); }
constexpr int kStageFloats = kChunk + kChunk / 32;

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

__global__ void __launch_bounds__(kMovingAverageBlock)
    moving_average_copy_kernel(const float* input, float* output, int size, int window, bool vector_input) {
    __shared__ float stage[kStageFloats];
    const long long first = static_cast<long long>(blockIdx.x) * kStreamSpan;
    const long long remaining = static_cast<long long>(size - window + 1) - first;
    const int outputs = static_cast<int>(remaining < kStreamSpan ? remaining : kStreamSpan);
    const int inputs = outputs + window - 1;
    float next[kPrefixItems], after[kPrefixItems];
    load_items(input, size, first + threadIdx.x * kPrefixItems, vector_input, next);
    if (kChunk < inputs) load_items(input, size, first + threadIdx.x * kPrefixItems + kChunk, vector_input, after);
    for (int base = 0; base < inputs; base += kChunk) {
        const int mine = base + threadIdx.x * kPrefixItems;
        float x[kPrefixItems];
#pragma unroll
        for (int k = 0; k < kPrefixItems; ++k) x[k] = next[k], next[k] = after[k];
        if (base + 2 * kChunk < inputs) load_items(input, size, first + mine + 2 * kChunk, vector_input, after);
        // Input q = mine + k is the last of output j = q + 1 - window's window.
#pragma unroll
        for (int k = 0; k < kPrefixItems; ++k) {
            const int j = mine + k + 1 - window;
            if (j >= 0 && j < outputs) stage[stage_slot(threadIdx.x * kPrefixItems + k)] = x[k];
        }
        __syncthreads();
        for (int i = threadIdx.x; i < kChunk; i += kMovingAverageBlock) {
            const int j = base + i + 1 - window;
            if (j >= 0 && j < outputs) output[first + j] = stage[stage_slot(i)];
        }
        __syncthreads();
    }
}

}  // namespace

void moving_average_copy(const float* input, float* output, int size, int window) {
    tutorial::require_moving_average_arguments("moving_average_copy", input, output, size, window);
    const int outputs = size - window + 1;
    const int blocks = static_cast<int>(tutorial::ceil_div(outputs, kStreamSpan));
    const bool aligned = reinterpret_cast<std::uintptr_t>(input) % 16 == 0;
    moving_average_copy_kernel<<<blocks, kMovingAverageBlock>>>(input, output, size, window, aligned);
    CUDA_CHECK_KERNEL("moving_average_copy_kernel");
}
