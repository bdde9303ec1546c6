/// @file async_copy_gemm.h
/// @brief Chapter 8's API: chapter 2's tiled GEMM with its tiles loaded by asynchronous
/// copies, in three steps, then chapter 7's warp tiles fed the same way.
///
/// Shared by your chapters/08-async-copies/async_copy_gemm.cu, the reference solution,
/// the tests and the benchmark. You do not need to edit it.
///
/// 8a to 8c compute the same product as chapter 2's tiled_gemm at TILE 32:
/// row-major floats, C (M×N) = A (M×K) · B (K×N), one kAsyncTile × kAsyncTile block of
/// threads per tile of C, one element of C per thread. They differ only in how the tiles
/// reach shared memory:
/// - 8a: the threads copy the next tiles with `__pipeline_memcpy_async`, 16 bytes a copy
///   where every row of A and B starts on 16 bytes (else 4), while the block multiplies the
///   current ones (two stages, compute capability 8.0+);
/// - 8b: the same copies through a per-thread `cuda::pipeline` with STAGES stages in
///   flight (8.0+);
/// - 8c: one thread asks the Tensor Memory Accelerator for whole tiles, completed through
///   a `cuda::barrier` that counts the bytes; the other threads only wait (9.0+).
///
/// 8d (going further) leaves chapter 2's scheme for chapter 7's warp tiles, each thread
/// keeping 8 × 8 sums in registers, their tiles copied by a three-stage `cp.async`
/// pipeline (8.0+).
#pragma once

#include "launch_config.h"

/// @brief The tile side of every step: a block is kAsyncTile × kAsyncTile threads.
constexpr int kAsyncTile = 32;

/// @brief The fewest stages async_pipeline_gemm accepts: it refills the stage of the
/// previous phase while this one is read, so it needs two.
constexpr int kMinPipelineStages = 2;

/// @brief The most stages async_pipeline_gemm accepts.
constexpr int kMaxPipelineStages = 4;

/// @brief The stages of 8c's pipeline of tensor copies.
constexpr int kTmaStages = 2;

/// @brief The launch of every step for an M×N matrix C: one kAsyncTile × kAsyncTile block
/// per tile of C, x along the columns (grid.x covers N), as in chapter 2.
tutorial::LaunchConfig async_gemm_launch_config(int M, int N);

/// @brief 8a: C = A·B, the next tiles copied asynchronously while the current ones are
/// multiplied (two stages, `__pipeline_memcpy_async`, `__pipeline_commit`,
/// `__pipeline_wait_prior`): 16-byte copies when every row of A and B starts on 16 bytes
/// (K and N multiples of 4, A and B 16-byte aligned), else 4-byte ones.
/// @param A device pointer to M×K
/// @param B device pointer to K×N
/// @param C device pointer to M×N, overwritten
/// @param M rows of A and C, ≥ 1
/// @param N columns of B and C, ≥ 1
/// @param K columns of A and rows of B, ≥ 1
/// @throws std::invalid_argument naming the argument for a size < 1 or a null pointer
/// @throws tutorial::CudaError if the launch or the kernel fails
void async_double_buffered_gemm(const float* A, const float* B, float* C, int M, int N, int K);

/// @brief 8b: C = A·B through a per-thread `cuda::pipeline` of @p stages stages, with 8a's
/// copies: up to @p stages tiles of A and of B are in flight while the oldest is multiplied.
/// Same result and errors as async_double_buffered_gemm(), and:
/// @param A device pointer to M×K
/// @param B device pointer to K×N
/// @param C device pointer to M×N, overwritten
/// @param M rows of A and C, ≥ 1
/// @param N columns of B and C, ≥ 1
/// @param K columns of A and rows of B, ≥ 1
/// @param stages kMinPipelineStages to kMaxPipelineStages (a template parameter of the kernel)
/// @throws std::invalid_argument for a stage count outside kMinPipelineStages..kMaxPipelineStages
void async_pipeline_gemm(const float* A, const float* B, float* C, int M, int N, int K, int stages);

/// @brief 8c (going further): C = A·B with the tiles loaded by the Tensor Memory
/// Accelerator from tensor maps of A and B; the hardware fills the parts of a tile
/// outside the matrix with zeros, so the kernel has no bounds code for its loads.
///
/// A tensor map needs rows that start on 16 bytes: K and N must be multiples of 4 and
/// A and B 16-byte aligned. The function refuses other arguments rather than falling
/// back, so a slow path never hides in a measurement; async_pipeline_gemm() takes any.
/// Same arguments and result as async_double_buffered_gemm(), and:
/// @throws std::invalid_argument naming K or N when it is not a multiple of 4, or A or B
///         when it does not start on 16 bytes
/// @throws std::runtime_error when the GPU's compute capability is below 9.0
void tma_gemm(const float* A, const float* B, float* C, int M, int N, int K);

// 8d's tiling: a block of kWarpPipeThreads threads (4 warps of 32 x 64) computes a
// kWarpPipeBM x kWarpPipeBN tile of C, walking along K kWarpPipeBK at a time with
// kWarpPipeStages tiles in flight.
constexpr int kWarpPipeBM = 64;         ///< 8d: rows of C a block computes
constexpr int kWarpPipeBN = 128;        ///< 8d: columns of C a block computes
constexpr int kWarpPipeBK = 16;         ///< 8d: the width along K of one stage's tiles
constexpr int kWarpPipeStages = 3;      ///< 8d: tiles along K in flight (the ring of stages)
constexpr int kWarpPipeThreads = 128;   ///< 8d: threads a block (4 warps of 32 x 64 outputs)

/// @brief 8d (going further): C = A·B with chapter 7's warp tiles (each thread keeps 8 × 8
/// sums in registers), their tiles brought by a `cp.async` pipeline of kWarpPipeStages
/// stages (`__pipeline_memcpy_async`, 16-byte copies; copies outside the matrices write
/// zeros). Where a row of A or B does not start on 16 bytes (K or N not a multiple of 4, or
/// a matrix not on 16 bytes), the kernel multiplies copies of them whose rows are padded
/// with zeros to a multiple of 4 floats, made first on the GPU in scratch memory
/// (cudaMallocAsync) that is freed after the kernel.
/// Same arguments, result and errors as async_double_buffered_gemm().
void async_warptile_gemm(const float* A, const float* B, float* C, int M, int N, int K);
