/// @file traffic_kernels.h
/// @brief Small kernels with known memory traffic, for the profiler's tests
/// (tests/profile.cpp). Each function launches its kernel once on device pointers and
/// checks the launch with CUDA_CHECK_KERNEL.
#pragma once

#include <cuda_runtime.h>

namespace traffic_kernels {

/// @brief A 16-byte element, laid out as CUDA's float4.
struct alignas(16) Float4 {
    float x, y, z, w;
};

/// @brief out[i] = in[i * stride + offset] for i < n, one thread per i, 256 threads a block.
void gather_float(const float* in, float* out, int n, int stride, int offset);
/// @brief out[i] = in[i] for i < n, 1-byte elements, 256 threads a block.
void copy_bytes(const unsigned char* in, unsigned char* out, int n);
/// @brief out[i] = in[i] for i < n, 16-byte elements, 256 threads a block.
void copy_float4(const Float4* in, Float4* out, int n);
/// @brief out[i] = in[0] for i < n: every lane of a warp reads the same word.
void broadcast_float(const float* in, float* out, int n);

/// @brief How shared_words reads its shared array of 1024 floats.
enum class SharedPattern {
    consecutive,  ///< lane t reads word t: no bank conflict
    stride_two,   ///< word 2t: two lanes per bank, a 2-way conflict
    stride_32,    ///< word 32t: every lane in bank 0, a 32-way conflict
    same_word,    ///< word 0 for every lane: a broadcast, no conflict
};
/// @brief One block of 32 threads fills 1024 shared floats (32 stores each, consecutive
/// words), waits at one barrier, then each thread reads one word by @p pattern into out[t].
void shared_words(float* out, SharedPattern pattern);

/// @brief The transpose of a 32 × 32 matrix through a 32 × (32 + pad) shared tile, one
/// block of 32 × 32 threads: rows are stored, columns are loaded. @p pad is 0 or 1.
void transpose_tile(const float* in, float* out, int pad);

}  // namespace traffic_kernels
