// Chapter 10: shared memory that feeds the tensor cores.
//
// Read README.md in this folder first. Then work through the TODO(chapter10) markers
// below, top to bottom, and run `make chapter10 test` after each one.
//
// C = A·B with BF16 inputs and FP32 accumulation. A block of 8 warps computes a 128 × 128
// tile of C, walking along K 64 columns of A and 64 rows of B at a time; each warp
// computes a 64 × 32 part of the tile as 4 × 4 tiles of 16 × 8, each the result of one
// mma.sync.m16n8k16 per 16 steps of K. The warp's operands come from shared memory
// through ldmatrix, which hands every lane exactly the elements mma.sync wants of it.
// The wrappers and the fragment layouts are in common/tensor_cores.h: read its table first.
//
//   10a: tiles loaded by ordinary loads, stored row-major, then swizzled.
//   10b: the swizzled tiles, brought by a 3-stage cp.async pipeline (chapter 8) into
//        dynamic shared memory.
//
// Every matrix is row-major: element (r, c) of a matrix with `cols` columns is at
// index r * cols + c.
#include "tensor_core_gemm.h"

#include "cuda_check.h"
#include "tensor_cores.h"
#include "validate.h"

#include <cuda_pipeline.h>  // __pipeline_memcpy_async and the other cp.async primitives (10b)

#include <cstdint>
#include <stdexcept>
#include <string>

tutorial::LaunchConfig mma_gemm_launch_config(int M, int N) {
    const dim3 block(kMmaThreads);
    const dim3 grid(tutorial::ceil_div(N, kMmaBlockN), tutorial::ceil_div(M, kMmaBlockM));
    return tutorial::LaunchConfig{grid, block};
}

// A's tile is kMmaBlockM rows of kMmaBlockK elements; B's kMmaBlockK rows of kMmaBlockN.
constexpr int kATileElements = kMmaBlockM * kMmaBlockK;
constexpr int kBTileElements = kMmaBlockK * kMmaBlockN;

// Where element (row, col) of a tile whose rows are ROW_ELEMENTS long lies in shared
// memory, in elements from the tile's start.
template <SharedLayout LAYOUT, int ROW_ELEMENTS>
__device__ __forceinline__ int tile_offset(int row, int col) {
    if (LAYOUT == SharedLayout::swizzled) return swizzled_offset(row, col, ROW_ELEMENTS);
    return row * ROW_ELEMENTS + col;
}

// ---- Loading a tile ----------------------------------------------------------------------

// Copy the ROWS × COLS block of a rows × cols matrix whose top-left element is (row0, col0)
// into the tile that starts at element `base` of `tiles`, stored in LAYOUT, with zeros where
// the block reaches past the matrix: the tensor cores then multiply zeros in the tails, and
// no mma needs a bounds check. Each thread copies chunks of 8 elements (16 bytes, the unit
// of the swizzle). When the whole block lies inside the matrix and its rows start on 16
// bytes (rows_aligned: the matrix starts on 16 bytes and its rows are a multiple of 8
// elements), a thread issues all its 16-byte loads before it stores any: its chunks are in
// flight together, where a load followed at once by its store would wait out the memory's
// latency once per chunk. Elsewhere it copies element by element. The arrays' types are
// template parameters so that the CPU backend keeps checking their accesses.
template <SharedLayout LAYOUT, int ROWS, int COLS, class Tiles, class Matrix>
__device__ void load_tile(Tiles& tiles, int base, Matrix matrix, int rows, int cols, int row0, int col0,
                          bool rows_aligned) {
    constexpr int kChunksPerRow = COLS / 8;
    constexpr int kChunksPerThread = ROWS * kChunksPerRow / kMmaThreads;
    static_assert(ROWS * kChunksPerRow % kMmaThreads == 0, "every thread copies the same number of chunks");
    if (rows_aligned && row0 + ROWS <= rows && col0 + COLS <= cols) {
        uint4 chunks[kChunksPerThread];
#pragma unroll
        for (int i = 0; i < kChunksPerThread; ++i) {
            const int chunk = threadIdx.x + i * kMmaThreads;
            const int r = chunk / kChunksPerRow, c = chunk % kChunksPerRow * 8;
            chunks[i] = *reinterpret_cast<const uint4*>(&matrix[static_cast<size_t>(row0 + r) * cols + col0 + c]);
        }
#pragma unroll
        for (int i = 0; i < kChunksPerThread; ++i) {
            const int chunk = threadIdx.x + i * kMmaThreads;
            const int r = chunk / kChunksPerRow, c = chunk % kChunksPerRow * 8;
            *reinterpret_cast<uint4*>(&tiles[base + tile_offset<LAYOUT, COLS>(r, c)]) = chunks[i];
        }
        return;
    }
    for (int chunk = threadIdx.x; chunk < ROWS * kChunksPerRow; chunk += kMmaThreads) {
        const int r = chunk / kChunksPerRow, c = chunk % kChunksPerRow * 8;
        const int row = row0 + r, col = col0 + c;
        if (rows_aligned && row < rows && col + 8 <= cols) {
            *reinterpret_cast<uint4*>(&tiles[base + tile_offset<LAYOUT, COLS>(r, c)]) =
                *reinterpret_cast<const uint4*>(&matrix[static_cast<size_t>(row) * cols + col]);
        } else {
            for (int e = 0; e < 8; ++e) {
                if (row < rows && col + e < cols) {
                    tiles[base + tile_offset<LAYOUT, COLS>(r, c + e)] = matrix[static_cast<size_t>(row) * cols + col + e];
                } else {
                    tiles[base + tile_offset<LAYOUT, COLS>(r, c + e)] = __float2bfloat16(0.0f);
                }
            }
        }
    }
}

// ---- 10a: the fragments ------------------------------------------------------------------

// One 64-wide step along K for the calling warp: its 4 × 4 tiles of 16 × 8 accumulate the
// products of its 64 rows of A's tile with its 32 columns of B's tile, 16 columns of K at a
// time. The tiles start at elements A_base and B_base of A_tiles and B_tiles. acc[i][j] is
// the accumulator fragment of the tile in row i, column j of the warp's tiles (c[0..3] of
// common/tensor_cores.h's table).
template <SharedLayout LAYOUT, class ATiles, class BTiles>
__device__ void multiply_tiles(const ATiles& A_tiles, int A_base, const BTiles& B_tiles, int B_base,
                               float (&acc)[4][4][4]) {
    const int warp = threadIdx.x / warpSize, lane = threadIdx.x % warpSize;
    const int warp_row = warp / 4 * kMmaWarpM, warp_col = warp % 4 * kMmaWarpN;
    for (int k = 0; k < kMmaBlockK; k += 16) {
        std::uint32_t a[4][4];  // A's fragments of the warp's four 16-row tiles
        std::uint32_t b[4][2];  // B's fragments of its four 8-column tiles
        for (int i = 0; i < 4; ++i) {
            // TODO(chapter10): 10a, step 1. The 16 × 16 block of A at rows warp_row + 16 i,
            //   columns k: ldmatrix_x4 with each lane giving the start of one row of one 8 × 8
            //   matrix, so that a[i][0..3] are the four registers of the table (matrix 0: rows
            //   0-7, columns 0-7; matrix 1: rows 8-15; matrix 2: rows 0-7, columns 8-15; ...).
            //   Which row and column does lane `lane` point at? Pass
            //   &A_tiles[A_base + tile_offset<LAYOUT, kMmaBlockK>(row, col)].
            (void)A_tiles, (void)A_base, (void)warp_row, (void)lane;
            a[i][0] = a[i][1] = a[i][2] = a[i][3] = 0;
        }
        for (int j = 0; j < 4; j += 2) {
            // TODO(chapter10): 10a, step 2. Two 8-column tiles of B at once, columns warp_col + 8 j
            //   and warp_col + 8 (j + 1), rows k to k + 15: ldmatrix_x4_trans (B is stored with
            //   k along the rows, and a register of B holds two neighbouring k of one column).
            //   Matrices 0 and 1 are rows k..k+7 and k+8..k+15 of the first tile (b[j][0],
            //   b[j][1]); 2 and 3 the same of the second (b[j + 1][0], b[j + 1][1]). B's tile
            //   has rows of kMmaBlockN elements: tile_offset<LAYOUT, kMmaBlockN>.
            (void)B_tiles, (void)B_base, (void)warp_col;
            b[j][0] = b[j][1] = b[j + 1][0] = b[j + 1][1] = 0;
        }
        for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) {
                tutorial::mma_m16n8k16_bf16(acc[i][j], a[i], b[j], acc[i][j]);
            }
        }
    }
}

// Write the calling warp's accumulators to C, whose tile starts at (block_row, block_col):
// only the elements inside C, since the tiles reach past it in the tails.
template <class Matrix>
__device__ void store_accumulators(const float (&acc)[4][4][4], Matrix C, int M, int N, int block_row,
                                   int block_col) {
    const int warp = threadIdx.x / warpSize, lane = threadIdx.x % warpSize;
    const int warp_row = block_row + warp / 4 * kMmaWarpM, warp_col = block_col + warp % 4 * kMmaWarpN;
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
            for (int r = 0; r < 4; ++r) {
                // TODO(chapter10): 10a, step 3. acc[i][j][r] is element (row, col) of the 16 × 8
                //   tile at (warp_row + 16 i, warp_col + 8 j): the table's c[r] for lane `lane`.
                //   Store it in C when it lies inside the M × N matrix.
                (void)acc, (void)C, (void)M, (void)N, (void)warp_row, (void)warp_col, (void)lane;
            }
        }
    }
}

template <SharedLayout LAYOUT>
__global__ void __launch_bounds__(kMmaThreads)
    mma_gemm_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K,
                    bool A_rows_aligned, bool B_rows_aligned) {
    // 16-byte chunks and ldmatrix's rows need 16-byte alignment; 128 puts every row of the
    // tiles on the same banks, which is what the swizzle reasons about. 2 × 16 KiB.
    __shared__ __align__(128) __nv_bfloat16 A_tile[kATileElements];
    __shared__ __align__(128) __nv_bfloat16 B_tile[kBTileElements];
    const int block_row = blockIdx.y * kMmaBlockM, block_col = blockIdx.x * kMmaBlockN;
    float acc[4][4][4] = {};
    for (int t = 0; t < K; t += kMmaBlockK) {
        load_tile<LAYOUT, kMmaBlockM, kMmaBlockK>(A_tile, 0, A, M, K, block_row, t, A_rows_aligned);
        load_tile<LAYOUT, kMmaBlockK, kMmaBlockN>(B_tile, 0, B, K, N, t, block_col, B_rows_aligned);
        // The warps read each other's rows of the tiles.
        __syncthreads();
        multiply_tiles<LAYOUT>(A_tile, 0, B_tile, 0, acc);
        // Nobody overwrites the tiles while a slower warp still reads them.
        __syncthreads();
    }
    store_accumulators(acc, C, M, N, block_row, block_col);
}

// ---- 10a, step 4: the swizzle -------------------------------------------------------------

__host__ __device__ int swizzled_offset(int row, int col, int row_elements) {
    // TODO(chapter10): 10a, step 4. Row `row` starts at row * row_elements as before; the chunk
    //   of 8 elements that holds `col` (col / 8) moves to chunk (col / 8) ^ (row % 8), and col
    //   keeps its place (col % 8) inside the chunk.
    return row * row_elements + col;
}

// ---- 10b: a cp.async pipeline ------------------------------------------------------------

// As load_tile<SharedLayout::swizzled, ROWS, COLS>, but a whole chunk that starts on 16 bytes
// is copied by cp.async, which the caller commits; the other elements are stored as
// load_tile stores them.
template <int ROWS, int COLS, class Tiles, class Matrix>
__device__ void copy_tile_async(Tiles& tiles, int base, Matrix matrix, int rows, int cols, int row0, int col0,
                                bool rows_aligned) {
    constexpr int kChunksPerRow = COLS / 8;
    for (int chunk = threadIdx.x; chunk < ROWS * kChunksPerRow; chunk += kMmaThreads) {
        const int r = chunk / kChunksPerRow, c = chunk % kChunksPerRow * 8;
        const int row = row0 + r, col = col0 + c;
        // TODO(chapter10): 10b, step 1. When rows_aligned and the chunk lies inside the matrix,
        //   one 16-byte asynchronous copy (chapter 8's __pipeline_memcpy_async) from the chunk's
        //   place in the matrix to its swizzled place in the stage (the same swizzled offset the
        //   synchronous load uses); else, as load_tile, element by element, zeros outside.
        (void)tiles, (void)base, (void)matrix, (void)rows, (void)cols, (void)row, (void)col, (void)rows_aligned;
    }
}

// One stage is A's tile then B's, in the dynamic shared memory.
constexpr int kStageElements = kATileElements + kBTileElements;
constexpr size_t kPipelineBytes = kMmaStages * kStageElements * sizeof(__nv_bfloat16);

__global__ void __launch_bounds__(kMmaThreads)
    mma_pipeline_gemm_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K,
                             bool A_rows_aligned, bool B_rows_aligned) {
    // kMmaStages stages of (A's tile, B's tile): 3 × 32 KiB, more than a block may declare
    // statically, so in the dynamic shared memory. Stage s's A tile starts at element
    // s * kStageElements, its B tile kATileElements later.
    extern __shared__ __align__(128) __nv_bfloat16 stages[];
    const int block_row = blockIdx.y * kMmaBlockM, block_col = blockIdx.x * kMmaBlockN;
    const int tiles = (K + kMmaBlockK - 1) / kMmaBlockK;
    float acc[4][4][4] = {};

    // TODO(chapter10): 10b, step 2. Chapter 8's pipeline with kMmaStages stages:
    //   1. before the loop, start the copies of tiles 0 .. kMmaStages - 2 into stages 0 ..
    //      kMmaStages - 2 (those that exist), each followed by __pipeline_commit();
    //   2. for each tile t: start the copies of tile t + kMmaStages - 1 (if it exists) into
    //      its stage, (t + kMmaStages - 1) % kMmaStages; commit a batch always (an empty batch
    //      keeps the count); wait until at most kMmaStages - 1 batches are in flight, which
    //      makes tile t's batch complete; a barrier;
    //      multiply_tiles<SharedLayout::swizzled> on stage t % kMmaStages; __syncthreads()
    //      before the stage is refilled.
    //   Each tile is two copy_tile_async calls: A's block of the block's rows and tile t's
    //   columns of K at the start of its stage, and B's block of tile t's rows of K and the
    //   block's columns kATileElements further in (see kStageElements above).
    (void)stages, (void)tiles, (void)A, (void)B, (void)K, (void)A_rows_aligned, (void)B_rows_aligned;
    store_accumulators(acc, C, M, N, block_row, block_col);
}

// ---- Host functions -----------------------------------------------------------------------

namespace {

// Whether every row of a matrix of `row_elements` BF16 per row starts on 16 bytes.
bool rows_start_on_16_bytes(const void* matrix, int row_elements) {
    return reinterpret_cast<std::uintptr_t>(matrix) % 16 == 0 && row_elements % 8 == 0;
}

void require_arguments(const char* function, const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C,
                       int M, int N, int K) {
    tutorial::require_positive(function, "M", M);
    tutorial::require_positive(function, "N", N);
    tutorial::require_positive(function, "K", K);
    tutorial::require_not_null(function, "A", A);
    tutorial::require_not_null(function, "B", B);
    tutorial::require_not_null(function, "C", C);
    // ldmatrix, mma.sync with BF16 and cp.async: compute capability 8.0. The kernels trap
    // when compiled for an older GPU; refuse here, in words, before launching them.
    int device = 0, major = 0, minor = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    if (major < 8) {
        throw std::runtime_error(std::string(function) + ": needs compute capability 8.0 (ldmatrix, mma.sync with "
                                 "BF16); this GPU is " + std::to_string(major) + "." + std::to_string(minor));
    }
}

template <SharedLayout LAYOUT>
void launch_mma_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K) {
    const tutorial::LaunchConfig launch = mma_gemm_launch_config(M, N);
    mma_gemm_kernel<LAYOUT><<<launch.grid, launch.block>>>(A, B, C, M, N, K, rows_start_on_16_bytes(A, K),
                                                           rows_start_on_16_bytes(B, N));
    CUDA_CHECK_KERNEL("mma_gemm_kernel");
}

}  // namespace

void mma_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K, SharedLayout layout) {
    require_arguments("mma_gemm", A, B, C, M, N, K);
    if (layout == SharedLayout::swizzled) {
        launch_mma_gemm<SharedLayout::swizzled>(A, B, C, M, N, K);
    } else {
        launch_mma_gemm<SharedLayout::row_major>(A, B, C, M, N, K);
    }
}

void mma_gemm_row_major(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K) {
    mma_gemm(A, B, C, M, N, K, SharedLayout::row_major);
}

void mma_gemm_swizzled(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K) {
    mma_gemm(A, B, C, M, N, K, SharedLayout::swizzled);
}

void mma_pipeline_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K) {
    require_arguments("mma_pipeline_gemm", A, B, C, M, N, K);
    // Above 48 KiB of dynamic shared memory a kernel must opt in, once.
    static const cudaError_t opted_in = cudaFuncSetAttribute(
        mma_pipeline_gemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kPipelineBytes));
    CUDA_CHECK(opted_in);
    const tutorial::LaunchConfig launch = mma_gemm_launch_config(M, N);
    mma_pipeline_gemm_kernel<<<launch.grid, launch.block, kPipelineBytes>>>(A, B, C, M, N, K,
                                                                             rows_start_on_16_bytes(A, K),
                                                                             rows_start_on_16_bytes(B, N));
    CUDA_CHECK_KERNEL("mma_pipeline_gemm_kernel");
}
