/// @file register_tiled_gemm.h
/// @brief Chapter 7's API: C = A·B with register tiling, in four steps towards cuBLAS.
///
/// Shared by your chapters/07-register-tiled-gemm/register_tiled_gemm.cu, the reference
/// solution, the tests and the benchmark. You do not need to edit it.
///
/// Every function computes the same product as chapter 2's tiled_gemm: row-major
/// floats, C (M×N) = A (M×K) · B (K×N), any M, N, K ≥ 1. They differ only in how much
/// work one thread does and how it moves the data:
/// - 7a: each thread computes a column of kTile1D_TM elements of C;
/// - 7b: each thread computes a kTile2D_TM × kTile2D_TN block of C, an outer product
///   of registers loaded from shared memory;
/// - 7c: the same, with float4 global loads and the tile of A stored transposed;
/// - 7d: the threads of a warp share a warp tile, and the next tiles are fetched from
///   global memory while the current ones are multiplied.
#pragma once

/// @name 7a: 1D register tiling
/// A block of (kTile1D_BM / kTile1D_TM) × kTile1D_BN threads computes a kTile1D_BM ×
/// kTile1D_BN tile of C, walking along K kTile1D_BK at a time.
///@{
constexpr int kTile1D_BM = 64;  ///< rows of C per block
constexpr int kTile1D_BN = 64;  ///< columns of C per block
constexpr int kTile1D_BK = 8;   ///< the depth of one phase along K
constexpr int kTile1D_TM = 8;   ///< rows of C per thread, one column
///@}

/// @name 7b and 7c: 2D register tiling
/// A block of (kTile2D_BM / kTile2D_TM) × (kTile2D_BN / kTile2D_TN) = 256 threads
/// computes a kTile2D_BM × kTile2D_BN tile of C.
///@{
constexpr int kTile2D_BM = 128;  ///< rows of C per block
constexpr int kTile2D_BN = 128;  ///< columns of C per block
constexpr int kTile2D_BK = 8;    ///< the depth of one phase along K
constexpr int kTile2D_TM = 8;    ///< rows of C per thread
constexpr int kTile2D_TN = 8;    ///< columns of C per thread
///@}

/// @name 7d: warp tiling
/// A block of 256 threads (8 warps) computes a kWarptile_BM × kWarptile_BN tile of C;
/// each warp a 64 × 32 part of it.
///@{
constexpr int kWarptile_BM = 128;  ///< rows of C per block
constexpr int kWarptile_BN = 128;  ///< columns of C per block
///@}

/// @brief 7d's small tiling: 64 × 64 tiles of C, 32 deep along K, for a block of 128
/// threads (4 warps of 32 × 32). On a problem whose 128 × 128 tiles are fewer than the GPU's
/// SMs (1024 × 1024 on an H100: 64 tiles for 132 SMs), the large tiling leaves SMs idle.
constexpr int kWarptileSmall = 64;

/// @brief The two tilings 7d's one kernel template is launched with.
enum class WarptileTiling {
    large,  ///< kWarptile_BM × kWarptile_BN tiles, 8 warps of 64 × 32, 16 deep
    small,  ///< kWarptileSmall × kWarptileSmall tiles, 4 warps of 32 × 32, 32 deep
};

/// @brief 7a: C = A·B, each thread computing kTile1D_TM elements of one column of C.
/// @param A device pointer to M×K
/// @param B device pointer to K×N
/// @param C device pointer to M×N, overwritten
/// @param M rows of A and C, ≥ 1
/// @param N columns of B and C, ≥ 1
/// @param K columns of A and rows of B, ≥ 1
/// @throws std::invalid_argument naming the argument for a size < 1 or a null pointer
/// @throws tutorial::CudaError if the launch or the kernel fails
void register_tiled_gemm_1d(const float* A, const float* B, float* C, int M, int N, int K);

/// @brief 7b: C = A·B, each thread computing a kTile2D_TM × kTile2D_TN block of C.
/// Same arguments, result and errors as register_tiled_gemm_1d().
void register_tiled_gemm_2d(const float* A, const float* B, float* C, int M, int N, int K);

/// @brief 7c: as 7b, loading A and B with float4 (16-byte) loads where the rows allow it
/// (K, respectively N, a multiple of 4 and the matrix 16-byte aligned; otherwise four
/// scalar loads), and storing the tile of A transposed in shared memory.
/// Same arguments, result and errors as register_tiled_gemm_1d().
void register_tiled_gemm_vectorized(const float* A, const float* B, float* C, int M, int N, int K);

/// @brief 7d: as 7c, with warp tiles: the threads of a warp compute one part of the
/// block's tile together. The kernel can also double-buffer (load the next tiles into
/// registers while the current ones are multiplied); the tiling this function uses does
/// not, because on an H100 it measured faster without (see the lesson).
/// It launches the tiling warptile_tiling_for(M, N) chooses.
/// Same arguments, result and errors as register_tiled_gemm_1d().
void register_tiled_gemm_warptiled(const float* A, const float* B, float* C, int M, int N, int K);

/// @brief The tiling register_tiled_gemm_warptiled() launches for an M × N output: small
/// when the large tiles would be fewer than half of warptile_blocks_per_wave(WarptileTiling::large)
/// (on an H100, fewer than its 132 SMs), large otherwise.
/// @throws tutorial::CudaError if the occupancy API fails (on the CPU backend: when it
/// does not know the kernel's registers, see docs/cpu-backend.md)
WarptileTiling warptile_tiling_for(int M, int N);

/// @brief How many blocks of @p tiling's kernel the GPU holds at once (a wave): the blocks
/// per SM cudaOccupancyMaxActiveBlocksPerMultiprocessor() gives for it, times the SMs
/// (cudaDevAttrMultiProcessorCount). On an H100 with the solution's kernel: 264 for the
/// large tiling (2 blocks per SM), 528 for the small one (4 per SM).
/// @throws std::invalid_argument naming @p tiling when it is neither tiling
/// @throws tutorial::CudaError as warptile_tiling_for()
int warptile_blocks_per_wave(WarptileTiling tiling);

/// @brief 7d with the given @p tiling (the tests run each one).
/// Same arguments, result and errors as register_tiled_gemm_1d(); std::invalid_argument
/// naming @p tiling when it is neither tiling.
void register_tiled_gemm_warptiled_with(WarptileTiling tiling, const float* A, const float* B, float* C, int M, int N,
                                        int K);
