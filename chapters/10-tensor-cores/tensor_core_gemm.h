/// @file tensor_core_gemm.h
/// @brief Chapter 10's API: C = A·B on the tensor cores, BF16 inputs and FP32
/// accumulation, with shared memory laid out to feed them.
///
/// Shared by your chapters/10-tensor-cores/tensor_core_gemm.cu, the reference solution,
/// the tests and the benchmark. You do not need to edit it.
///
/// A (M×K) and B (K×N) are row-major BF16 (`__nv_bfloat16`) in device memory, as a
/// library such as cuBLAS takes them (CUDA_R_16BF); C (M×N) is row-major float. The
/// inputs are BF16 in memory, not floats converted in the kernel, for two reasons: half
/// the bytes cross the memory bus, and 10b's asynchronous copies move bytes unchanged (a
/// copy cannot convert). The tests and demos start from floats, rounded to BF16 on the
/// host (round to nearest, ties to even), and the CPU reference multiplies the same
/// rounded values: C differs from it only by the FP32 accumulation.
///
/// Every step works for any M, N, K ≥ 1. A block of kMmaThreads threads (4 warps)
/// computes a kMmaBlockM × kMmaBlockN tile of C, walking along K kMmaBlockK at a time; each
/// warp computes a kMmaWarpM × kMmaWarpN part of it as 4 × 8 tiles of 16 × 8, each with
/// `mma.sync.m16n8k16` (the wrappers and the fragments: common/tensor_cores.h).
/// - 10a: the tiles of A (128 × 64) and B (64 × 128) are loaded into shared memory by
///   ordinary loads, a step ahead through registers where the tiles are whole (the next
///   step's loads are in flight while the warps multiply), then into the fragments by `ldmatrix`; first stored row-major
///   (SharedLayout::row_major: 8-way bank conflicts), then swizzled
///   (SharedLayout::swizzled: none).
/// - 10b: the same swizzled tiles, brought by a kMmaStages-stage pipeline of `cp.async`
///   copies (chapter 8) into dynamic shared memory while the warps multiply the oldest stage.
///
/// - 10c: Hopper's warpgroup MMA. A block of kWgmmaThreads threads (2 warpgroups of 4
///   warps) computes a kWgmmaBlockM × kWgmmaBlockN tile of C, each warpgroup 64 rows with
///   one `wgmma.mma_async.m64n256k16` per 16 steps of K, both operands read from shared
///   memory through descriptors (wgmma_descriptor()); the Tensor Memory Accelerator writes
///   the tiles there in the 128-byte swizzle, kWgmmaStages stages ahead, each stage's
///   arrival counted in bytes on an mbarrier (the wrappers: common/wgmma.h).
///
/// - 10d (going further): 10c's tile and stages, with the roles split. A block of
///   kSpecializedThreads threads has a producer warpgroup, one thread of which issues every
///   TMA copy, and two consumer warpgroups that only wait, multiply and store; `setmaxnreg`
///   moves registers from the producer to the consumers. The grid is persistent: one block
///   per SM, each walking the tiles of C blockIdx.x, blockIdx.x + gridDim.x, ..., its stages'
///   ring running on from one tile to the next, so that the producer loads the next tile's
///   stages while the consumers store the last tile's accumulators.
///
/// 10a and 10b need compute capability 8.0 (ldmatrix, mma.sync with BF16, cp.async); 10c
/// and 10d need sm_90a, the arch-specific features of compute capability 9.0 (Hopper).
#pragma once

#include "launch_config.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

constexpr int kMmaBlockM = 128;   ///< rows of C a block computes
constexpr int kMmaBlockN = 128;   ///< columns of C a block computes
constexpr int kMmaBlockK = 64;    ///< the width along K of one tile: a row of A's tile is 64 BF16, 128 bytes
constexpr int kMmaWarpM = 64;     ///< rows of C a warp computes: 4 tiles of 16
constexpr int kMmaWarpN = 64;     ///< columns of C a warp computes: 8 tiles of 8
constexpr int kMmaThreads = 128;  ///< threads a block: 2 × 2 warps
constexpr int kMmaStages = 3;     ///< 10b: tiles along K in flight (96 KiB of dynamic shared memory)
constexpr int kMmaWarpTilesM = kMmaWarpM / 16;  ///< 16 × 8 tiles of C a warp computes, down
constexpr int kMmaWarpTilesN = kMmaWarpN / 8;   ///< and across
constexpr int kMmaWarpsN = kMmaBlockN / kMmaWarpN;  ///< warps across a block's tile of C
static_assert(kMmaBlockM / kMmaWarpM * kMmaWarpsN * 32 == kMmaThreads, "one warp per warp tile of the block's tile");

constexpr int kWgmmaBlockM = 128;   ///< 10c: rows of C a block computes: 64 per warpgroup
constexpr int kWgmmaBlockN = 256;   ///< 10c: columns of C a block computes: one wgmma's N
constexpr int kWgmmaBlockK = 64;    ///< 10c: the width along K of a stage: 128 bytes, one row of the 128-byte swizzle
constexpr int kWgmmaThreads = 256;  ///< 10c: threads a block: 2 warpgroups of 128
constexpr int kWgmmaStages = 4;     ///< 10c: stages of tiles along K in flight, 48 KiB each

constexpr int kSpecializedThreads = 384;       ///< 10d: a producer warpgroup, then two consumer warpgroups
constexpr int kSpecializedStages = 4;          ///< 10d: stages of 48 KiB; 5 would pass the 227 KiB a block may have
constexpr int kProducerRegisters = 40;         ///< 10d: registers per thread the producer warpgroup keeps (setmaxnreg.dec)
constexpr int kConsumerRegisters = 232;        ///< 10d: registers per thread each consumer warpgroup takes (setmaxnreg.inc)
constexpr int kStagingColumns = 32;            ///< 10d: columns of C a consumer warp stages in shared memory at a time
constexpr int kStagingPitch = 40;              ///< 10d: floats from one staged row to the next: 32 and 8 more, so that 8 rows start in 4 bank groups

/// @brief How the tiles (A's 128 × 64, B's 64 × 128 BF16) are stored in shared memory.
enum class SharedLayout {
    row_major,  ///< element (r, c) of a tile with rows of n elements at r · n + c
    swizzled,   ///< the 16-byte chunks of row r permuted by XOR with r % 8 (swizzled_offset())
};

/// @brief Where element (@p row, @p col) of a tile of 16-bit elements whose rows are
/// @p row_elements long (a multiple of 64: 128 bytes) is stored in the swizzled layout,
/// counted in elements: in row @p row still (from row · row_elements), but its chunk of 8
/// elements (16 bytes) col / 8 is moved to chunk (col / 8) XOR (row % 8), keeping col % 8
/// inside it. The 8 rows that one ldmatrix matrix reads at one chunk column then lie in 8
/// different groups of 4 banks. A host and device function, so that the tests can check it.
__host__ __device__ int swizzled_offset(int row, int col, int row_elements);

/// @brief The launch of every step for an M×N matrix C: one kMmaThreads-thread block per
/// kMmaBlockM × kMmaBlockN tile of C, in a one-dimensional grid (the kernels order the tiles
/// in groups of rows, for L2, as 10c does).
tutorial::LaunchConfig mma_gemm_launch_config(int M, int N);

/// @brief 10a: C = A·B with `mma.sync` fed by `ldmatrix` from tiles stored in @p layout.
/// @param A device pointer to M×K BF16
/// @param B device pointer to K×N BF16
/// @param C device pointer to M×N floats, overwritten
/// @param M rows of A and C, ≥ 1
/// @param N columns of B and C, ≥ 1
/// @param K columns of A and rows of B, ≥ 1
/// @param layout how the tiles are stored in shared memory
/// @throws std::invalid_argument naming the argument for a size < 1 or a null pointer
/// @throws tutorial::CudaError if the launch or the kernel fails
void mma_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K, SharedLayout layout);

/// @brief 10a with the row-major tiles: mma_gemm(..., SharedLayout::row_major).
void mma_gemm_row_major(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K);

/// @brief 10a with the swizzled tiles: mma_gemm(..., SharedLayout::swizzled).
void mma_gemm_swizzled(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K);

/// @brief 10b: C = A·B as mma_gemm_swizzled(), the tiles brought by a kMmaStages-stage
/// pipeline of `cp.async` copies (16 bytes at a time where a row of A or B starts on 16
/// bytes, element by element elsewhere and at the matrices' edges, zeros outside) into
/// kMmaStages × 32 KiB of dynamic shared memory, past the 48 KiB a block gets without asking
/// (the function opts in with cudaFuncSetAttribute).
/// Same arguments, result and errors as mma_gemm().
void mma_pipeline_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K);

/// @brief 10c: the 64-bit shared-memory matrix descriptor of `wgmma.mma_async` (PTX ISA,
/// "Matrix Descriptor Format"; the table in common/wgmma.h) for a tile in the 128-byte
/// swizzle that starts on a 1024-byte boundary (base offset 0): @p start_address (the
/// shared-window address of the operand's first element), @p leading_byte_offset and
/// @p stride_byte_offset in bytes, each encoded as (x & 0x3FFFF) >> 4 in its field, and
/// swizzle mode 1 (128 bytes) in bits 62-63. A host and device function, so that the tests
/// can check it.
__host__ __device__ std::uint64_t wgmma_descriptor(std::uint32_t start_address, std::uint32_t leading_byte_offset,
                                                   std::uint32_t stride_byte_offset);

/// @brief The launch of 10c for an M×N matrix C: one kWgmmaThreads-thread block per
/// kWgmmaBlockM × kWgmmaBlockN tile of C, in a one-dimensional grid (the kernel orders the
/// tiles in groups of rows, for L2).
tutorial::LaunchConfig wgmma_gemm_launch_config(int M, int N);

/// @brief 10c: C = A·B with `wgmma.mma_async` on tiles the Tensor Memory Accelerator writes
/// into kWgmmaStages × 48 KiB of dynamic shared memory in the 128-byte swizzle. A is read
/// K-major, B (row-major K × N) MN-major. A matrix whose rows do not start on 16 bytes (K or
/// N not a multiple of 8, or a pointer into a buffer) is first copied into a scratch buffer
/// with rows padded to 16 bytes, which the tensor map needs.
/// Same arguments and result as mma_gemm().
/// @throws std::invalid_argument naming the argument for a size < 1 or a null pointer
/// @throws std::runtime_error on a GPU other than compute capability 9.0, or a program
///         compiled without sm_90a
/// @throws tutorial::CudaError if the launch or the kernel fails
void wgmma_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K);

/// @brief The launch of 10d for an M×N matrix C: kSpecializedThreads threads a block, and as
/// many blocks as the GPU has SMs (cudaDevAttrMultiProcessorCount), or as C has tiles of
/// kWgmmaBlockM × kWgmmaBlockN if fewer, or at most @p max_blocks.
tutorial::LaunchConfig wgmma_specialized_gemm_launch_config(int M, int N, int max_blocks);

/// @brief 10d: C = A·B as wgmma_gemm(), by a persistent grid of warp-specialized blocks: in
/// each, one producer warpgroup (kProducerRegisters registers a thread) whose first thread
/// fills kSpecializedStages stages of 48 KiB by the TMA, and two consumer warpgroups
/// (kConsumerRegisters) that multiply them with wgmma and store C through shared memory,
/// each warp 16 rows × kStagingColumns at a time, in whole rows of 16-byte stores; one block
/// per SM, each walking C's 128 × 256 tiles in 10c's grouped order.
/// Same arguments, result and errors as wgmma_gemm().
void wgmma_specialized_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K);

/// @brief 10d on at most @p max_blocks blocks (≥ 1), so that each block walks several tiles
/// even of small matrices: what the tests use to check that the stages' phases run on from
/// one tile to the next. wgmma_specialized_gemm() is this with the GPU's number of SMs.
/// @throws std::invalid_argument naming the argument for a size or @p max_blocks < 1, or a
///         null pointer; the rest as wgmma_gemm()
void wgmma_specialized_gemm_on(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K,
                               int max_blocks);
