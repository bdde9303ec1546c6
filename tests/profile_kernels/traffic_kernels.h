/// @file traffic_kernels.h
/// @brief Small kernels with known memory traffic, for the profiler's tests
/// (tests/profile.cpp). Each function launches its kernel once on device pointers and
/// checks the launch with CUDA_CHECK_KERNEL.
#pragma once

#include <cstdint>

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

/// @brief out[4i..4i+3] = in[4i..4i+3] for i < quads, as one float4 load and one float4
/// store through reinterpret_cast of `&in[4 * i]`: counted by the CPU backend.
void copy_cast_float4(const float* in, float* out, int quads);
/// @brief The same copy through `const float4*` variables: the CPU backend cannot follow
/// them, counts nothing and says so (LaunchProfile::uncounted_casts).
void copy_raw_float4(const float* in, float* out, int quads);

/// @brief Where lane t of shared_vectors reads its vector (word indices; W floats a vector).
enum class VectorPattern {
    consecutive,    ///< W t
    same,           ///< 0 for every lane
    two_halves,     ///< 16 (t / 16): lanes 0-15 one vector, lanes 16-31 another, 64 bytes on
    halves_repeat,  ///< W (t % 16): lanes 16-31 read what lanes 0-15 read
    eights,         ///< 32 (t / 8): four vectors, each for 8 lanes, in the same banks
    every_other,    ///< 2 W t
    rows_alternate, ///< 32 (t % 2) + W (t / 2) % 32: even and odd lanes in two rows of the same banks
};
/// @brief One warp stores 1024 shared floats as vectors of @p vector_floats (2 or 4)
/// floats, consecutively, then each lane loads one vector by @p pattern and writes the sum
/// of its components to out[t].
void shared_vectors(float* out, int vector_floats, VectorPattern pattern);

/// @brief Chapter 2's inner loop in small (16 x 16 threads, 16 x 16 tile, unrolled):
/// out[y][x] = sum over k of tile[y][k] * tile[k][x], tile[y][x] = 16 y + x.
void row_times_column(float* out);

/// @brief @p blocks blocks of 256 threads; block b copies in[2048 b ...] into a shared tile
/// (8 consecutive stores per thread) and writes it back reversed: out[2048 b + i] =
/// in[2048 b + 2047 - i]. @p l2_only: load with __ldcg (cached in L2, not L1).
void stage_tile(const float* in, float* out, int blocks, bool l2_only);
/// @brief As stage_tile, but the tile is filled with cp.async copies of @p copy_bytes (4 or
/// 16) bytes (`__pipeline_memcpy_async`), consecutive across the block, then waited for.
void stage_tile_async(const float* in, float* out, int blocks, int copy_bytes);
/// @brief Blocks of 256 threads; thread t of block b loads in[768 b + t], waits at a
/// barrier, loads in[768 b + 256 + t] and in[768 b + 512 + t], waits again, and writes
/// out[256 b + t] = in[768 b + 255 - t] + in[768 b + 256 + t] + in[768 b + 512 + t]
/// (summed in that order): 1 KiB of loads in its first span between barriers, 2 KiB in
/// its second.
void two_spans(const float* in, float* out, int blocks);

/// @brief One block of 128 threads; both shared arrays hold in[0..127]. Thread t writes
/// out[t] = the sum of the components of a, then b, c and d (each summed x + y + z + w,
/// then the four sums left to right), for the float4s a = element t % 32 of the __shared__
/// array seen as float4s, b = the same of the extern __shared__ array, c = element t % 8 of
/// the array's row 1, d = element t % 32 of in.
void cast_forms(const float* in, float* out);

/// @brief out[i] = in[4 i] for i < quads, as `from[i].x` through `auto from =
/// reinterpret_cast<const float4*>(in)`: counted on the CPU as one float4 load per thread.
/// (Not in the probe: nvcc loads only the x component, 4 bytes.)
void auto_pointer(const float* in, float* out, int quads);

/// @brief @p blocks blocks of @p threads threads, each with a histogram of 32 bins in
/// shared memory: thread t of block b adds 1 to bin in[(k blocks + b) threads + t] % 32 for
/// k = 0, 1, 2 (three atomicAdd calls); out[32 b + bin] = the block's counts.
void shared_atomics(const unsigned* in, unsigned* out, int blocks, int threads);

/// @brief Clusters of 2 blocks (cudaLaunchKernelEx, @p blocks even; sm_90) of @p threads
/// threads: thread t of block b adds in[b threads + t] to word t % 32 of its block's
/// shared memory and to the same word of the other block of its pair (map_shared_rank);
/// out[b threads + t] = word t % 32 of block b after both.
void remote_atomics(const unsigned* in, unsigned* out, int blocks, int threads);

/// @brief Clusters of 2 blocks (@p blocks even; sm_90) of @p threads threads: one call
/// site through map_shared_rank, executed twice, thread t of block b adding
/// in[b threads + t] to word t % 32 of its own block and of the other block of its pair
/// (its own first for t even, the other's first for t odd); out[b threads + t] = word
/// t % 32 of block b after all.
void mixed_rank_atomics(const unsigned* in, unsigned* out, int blocks, int threads);

/// @brief Clusters of 2 blocks (@p blocks even; sm_90) of @p threads threads (at most
/// 1024): out[b threads + t] = in[b' threads + t], b' the other block of b's pair, read
/// from that block's shared memory through map_shared_rank.
void remote_loads(const unsigned* in, unsigned* out, int blocks, int threads);

/// @brief @p blocks blocks of @p threads threads: thread t of block b adds 1 to
/// out[in[b threads + t] % 32] with atomicAdd, and in[b threads + t] to out[32 + t % 32]
/// with atomicAdd, using the old value it returns (out has 64 words): two atomics per thread
/// on global memory.
void global_atomics(const unsigned* in, unsigned* out, int blocks, int threads);

/// @brief One warp stores a 16 × 64 tile of BF16 (128-byte rows, element (r, c) = 64 r + c)
/// in shared memory, row-major or, when @p swizzled, each row's 16-byte chunk c at c XOR
/// (r % 8) (chapter 10); then one ldmatrix.x4 of its first 16 × 16 block, lane l pointing at
/// row l % 16, column 8 (l / 16); out[4 l + i] = lane l's register i.
void ldmatrix_tile(std::uint32_t* out, bool swizzled);

}  // namespace traffic_kernels
