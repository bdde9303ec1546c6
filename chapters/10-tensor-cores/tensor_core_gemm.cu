// Chapter 10: shared memory that feeds the tensor cores.
//
// Read README.md in this folder first. Then work through the TODO(chapter10) markers
// below, top to bottom, and run `make chapter10 test` after each one.
//
// C = A·B with BF16 inputs and FP32 accumulation. A block of 4 warps computes a 128 × 128
// tile of C, walking along K 64 columns of A and 64 rows of B at a time; each warp
// computes a 64 × 64 part of the tile as 4 × 8 tiles of 16 × 8, each the result of one
// mma.sync.m16n8k16 per 16 steps of K. The warp's operands come from shared memory
// through ldmatrix, which hands every lane exactly the elements mma.sync wants of it.
// The wrappers and the fragment layouts are in common/tensor_cores.h: read its table first.
//
//   10a: tiles loaded by ordinary loads, stored row-major, then swizzled.
//   10b: the swizzled tiles, brought by a 3-stage cp.async pipeline (chapter 8) into
//        dynamic shared memory.
//   10c: Hopper's warpgroup MMA (wgmma, sm_90a) on operands read straight from shared
//        memory, where the Tensor Memory Accelerator writes the tiles in the 128-byte
//        swizzle, 4 stages ahead, each stage's arrival counted in bytes on an mbarrier. The
//        wrappers are in common/wgmma.h: read its table of the descriptor's bits first.
//   10d (going further): 10c's tile and stages with the roles split: a producer warpgroup
//        whose one thread issues every copy, two consumer warpgroups that take its registers
//        (setmaxnreg) and only multiply and store; one persistent block per SM.
//
// Every matrix is row-major: element (r, c) of a matrix with `cols` columns is at
// index r * cols + c.
#include "tensor_core_gemm.h"

#include "cuda_check.h"
#include "device_buffer.h"
#include "padded_rows.h"
#include "tensor_cores.h"
#include "validate.h"
#include "wgmma.h"

#include <cuda.h>            // CUtensorMap and its enums (10c); no -lcuda: see make_tile_map
#include <cudaTypedefs.h>    // PFN_cuTensorMapEncodeTiled, the type of the driver's function
#include <cuda/barrier>      // cuda::barrier (an mbarrier) and the TMA's copies (10c)
#include <cuda_pipeline.h>   // __pipeline_memcpy_async and the other cp.async primitives (10b)

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

tutorial::LaunchConfig mma_gemm_launch_config(int M, int N) {
    const dim3 block(kMmaThreads);
    const dim3 grid(tutorial::ceil_div(N, kMmaBlockN) * tutorial::ceil_div(M, kMmaBlockM));
    return tutorial::LaunchConfig{grid, block};
}

// The corner (block_row, block_col) of the TILE_M × TILE_N tile of an M × N matrix C that
// block `block` of a one-dimensional grid computes: blocks go down groups of 8 rows of tiles
// before across, so that the blocks running at once share rows of A and columns of B in L2.
// (10b in the order of a two-dimensional grid, a row of tiles after another: 42.7% and 43.9%
// of cuBLAS at 4096³ and 8192³ on the H200; in this order 45.1% and 46.3%.)
template <int TILE_M, int TILE_N>
__device__ __forceinline__ void grouped_tile(int block, int M, int N, int& block_row, int& block_col) {
    constexpr int kGroupRows = 8;
    const int tiles_m = (M + TILE_M - 1) / TILE_M, tiles_n = (N + TILE_N - 1) / TILE_N;
    const int group = block / (kGroupRows * tiles_n), first = group * kGroupRows;
    const int rows = tiles_m - first < kGroupRows ? tiles_m - first : kGroupRows;
    const int in_group = block % (kGroupRows * tiles_n);
    block_row = (first + in_group % rows) * TILE_M;
    block_col = in_group / rows * TILE_N;
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

// Which chunk of 8 elements (16 bytes, the unit of the swizzle) of a tile with rows of COLS
// elements is this thread's i-th: row r, column c (a multiple of 8). Thread t copies chunks
// t, t + kMmaThreads, ...: a warp's 32 chunks are consecutive, whole rows of the matrix.
// Written as the thread's first chunk's row plus i times the rows that kMmaThreads chunks
// span, and its column, the same for every i, so that ptxas sees each chunk's place a
// constant away from the first's. Written as (t + i · kMmaThreads) / (COLS / 8) on an int,
// which ptxas cannot split so, each place was computed again at every step: 10b then ran
// at 45.1% of cuBLAS at 4096³ on the H200, against 51.1% so.
template <int COLS>
__device__ __forceinline__ void chunk_place(int i, int& r, int& c) {
    constexpr unsigned kChunksPerRow = COLS / 8;
    static_assert(kMmaThreads % kChunksPerRow == 0, "kMmaThreads chunks are whole rows");
    r = static_cast<int>(threadIdx.x / kChunksPerRow) + i * static_cast<int>(kMmaThreads / kChunksPerRow);
    c = static_cast<int>(threadIdx.x % kChunksPerRow) * 8;
}

// Copy the ROWS × COLS block of a rows × cols matrix whose top-left element is (row0, col0)
// into the tile that starts at element `base` of `tiles`, stored in LAYOUT, with zeros where
// the block reaches past the matrix: the tensor cores then multiply zeros in the tails, and
// no mma needs a bounds check. A chunk that lies inside the matrix and starts on 16 bytes
// (rows_aligned: the matrix starts on 16 bytes and its rows are a multiple of 8 elements)
// is copied whole, the others element by element. The arrays' types are template
// parameters so that the CPU backend keeps checking their accesses.
template <SharedLayout LAYOUT, int ROWS, int COLS, class Tiles, class Matrix>
__device__ void load_tile(Tiles& tiles, int base, Matrix matrix, int rows, int cols, int row0, int col0,
                          bool rows_aligned) {
    constexpr int kChunksPerRow = COLS / 8;
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

// 10a's loads of the tiles of one step along K, k0 to k0 + kMmaBlockK, when the block's
// tiles lie wholly inside A and B and their rows start on 16 bytes: A's block of the block's
// rows, and B's block of those rows of K and the block's columns, each thread's chunks held
// in registers between their loads and their stores to shared memory. Elsewhere, load_tile.
struct StepChunks {
    static constexpr int kA = kMmaBlockM * kMmaBlockK / 8 / kMmaThreads;  // A's chunks a thread
    static constexpr int kB = kMmaBlockK * kMmaBlockN / 8 / kMmaThreads;  // B's chunks a thread
    static_assert(kA * 8 * kMmaThreads == kMmaBlockM * kMmaBlockK, "every thread copies the same number of chunks");
    static_assert(kB * 8 * kMmaThreads == kMmaBlockK * kMmaBlockN, "every thread copies the same number of chunks");
    uint4 A[kA];
    uint4 B[kB];
};

// Issue a thread's 16 loads of a step, A's and B's, all before anything waits for them.
template <class AMatrix, class BMatrix>
__device__ __forceinline__ void fetch_step(StepChunks& chunks, AMatrix A, BMatrix B, int N, int K, int block_row,
                                           int block_col, int k0) {
    int r, c;
#pragma unroll
    for (int i = 0; i < StepChunks::kA; ++i) {
        chunk_place<kMmaBlockK>(i, r, c);
        chunks.A[i] = *reinterpret_cast<const uint4*>(&A[static_cast<size_t>(block_row + r) * K + k0 + c]);
    }
#pragma unroll
    for (int i = 0; i < StepChunks::kB; ++i) {
        chunk_place<kMmaBlockN>(i, r, c);
        chunks.B[i] = *reinterpret_cast<const uint4*>(&B[static_cast<size_t>(k0 + r) * N + block_col + c]);
    }
}

// Store the chunks fetch_step loaded into the tiles, in LAYOUT.
template <SharedLayout LAYOUT, class ATile, class BTile>
__device__ __forceinline__ void store_step(const StepChunks& chunks, ATile& A_tile, BTile& B_tile) {
    int r, c;
#pragma unroll
    for (int i = 0; i < StepChunks::kA; ++i) {
        chunk_place<kMmaBlockK>(i, r, c);
        *reinterpret_cast<uint4*>(&A_tile[tile_offset<LAYOUT, kMmaBlockK>(r, c)]) = chunks.A[i];
    }
#pragma unroll
    for (int i = 0; i < StepChunks::kB; ++i) {
        chunk_place<kMmaBlockN>(i, r, c);
        *reinterpret_cast<uint4*>(&B_tile[tile_offset<LAYOUT, kMmaBlockN>(r, c)]) = chunks.B[i];
    }
}

// ---- 10a: the fragments ------------------------------------------------------------------

// One 64-wide step along K for the calling warp: its 4 × 8 tiles of 16 × 8 accumulate the
// products of its 64 rows of A's tile with its 64 columns of B's tile, 16 columns of K at a
// time. The tiles start at elements A_base and B_base of A_tiles and B_tiles. acc[i][j] is
// the accumulator fragment of the tile in row i, column j of the warp's tiles (c[0..3] of
// common/tensor_cores.h's table).
template <SharedLayout LAYOUT, class ATiles, class BTiles>
__device__ void multiply_tiles(const ATiles& A_tiles, int A_base, const BTiles& B_tiles, int B_base,
                               float (&acc)[kMmaWarpTilesM][kMmaWarpTilesN][4]) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = warp / kMmaWarpsN * kMmaWarpM, warp_col = warp % kMmaWarpsN * kMmaWarpN;
#pragma unroll
    for (int k = 0; k < kMmaBlockK; k += 16) {
        std::uint32_t a[kMmaWarpTilesM][4];  // A's fragments of the warp's four 16-row tiles
        std::uint32_t b[kMmaWarpTilesN][2];  // B's fragments of its eight 8-column tiles
#pragma unroll
        for (int i = 0; i < kMmaWarpTilesM; ++i) {
            // TODO(chapter10): 10a, step 1. The 16 × 16 block of A at rows warp_row + 16 i,
            //   columns k: ldmatrix_x4 with each lane giving the start of one row of one 8 × 8
            //   matrix, so that a[i][0..3] are the four registers of the table (matrix 0: rows
            //   0-7, columns 0-7; matrix 1: rows 8-15; matrix 2: rows 0-7, columns 8-15; ...).
            //   Which row and column does lane `lane` point at? Pass
            //   &A_tiles[A_base + tile_offset<LAYOUT, kMmaBlockK>(row, col)].
            (void)A_tiles, (void)A_base, (void)warp_row, (void)lane;
            a[i][0] = a[i][1] = a[i][2] = a[i][3] = 0;
        }
#pragma unroll
        for (int j = 0; j < kMmaWarpTilesN; j += 2) {
            // TODO(chapter10): 10a, step 2. Two 8-column tiles of B at once, columns warp_col + 8 j
            //   and warp_col + 8 (j + 1), rows k to k + 15: ldmatrix_x4_trans (B is stored with
            //   k along the rows, and a register of B holds two neighbouring k of one column).
            //   Matrices 0 and 1 are rows k..k+7 and k+8..k+15 of the first tile (b[j][0],
            //   b[j][1]); 2 and 3 the same of the second (b[j + 1][0], b[j + 1][1]). B's tile
            //   has rows of kMmaBlockN elements: tile_offset<LAYOUT, kMmaBlockN>.
            (void)B_tiles, (void)B_base, (void)warp_col;
            b[j][0] = b[j][1] = b[j + 1][0] = b[j + 1][1] = 0;
        }
#pragma unroll
        for (int i = 0; i < kMmaWarpTilesM; ++i) {
#pragma unroll
            for (int j = 0; j < kMmaWarpTilesN; ++j) {
                tutorial::mma_m16n8k16_bf16(acc[i][j], a[i], b[j], acc[i][j]);
            }
        }
    }
}

// Write the calling warp's accumulators to C, whose tile starts at (block_row, block_col):
// only the elements inside C, since the tiles reach past it in the tails.
template <class Matrix>
__device__ void store_accumulators(const float (&acc)[kMmaWarpTilesM][kMmaWarpTilesN][4], Matrix C, int M, int N, int block_row,
                                   int block_col) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = block_row + warp / kMmaWarpsN * kMmaWarpM, warp_col = block_col + warp % kMmaWarpsN * kMmaWarpN;
#pragma unroll
    for (int i = 0; i < kMmaWarpTilesM; ++i) {
#pragma unroll
        for (int j = 0; j < kMmaWarpTilesN; ++j) {
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                // TODO(chapter10): 10a, step 3. acc[i][j][r] is element (row, col) of the 16 × 8
                //   tile at (warp_row + 16 i, warp_col + 8 j): the table's c[r] for lane `lane`.
                //   Store it in C when it lies inside the M × N matrix.
                (void)acc, (void)C, (void)M, (void)N, (void)warp_row, (void)warp_col, (void)lane;
            }
        }
    }
}

// Two blocks an SM: a warp's 4 × 8 tiles of C take 128 registers of accumulators alone,
// and ptxas uses up to 255 a thread (65536 / (2 × 128) = 256). While one block waits for
// its tiles, the other's warps multiply.
template <SharedLayout LAYOUT>
__global__ void __launch_bounds__(kMmaThreads, 2)
    mma_gemm_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K,
                    bool A_rows_aligned, bool B_rows_aligned) {
    // 16-byte chunks and ldmatrix's rows need 16-byte alignment; 128 puts every row of the
    // tiles on the same banks, which is what the swizzle reasons about. 2 × 16 KiB.
    __shared__ __align__(128) __nv_bfloat16 A_tile[kATileElements];
    __shared__ __align__(128) __nv_bfloat16 B_tile[kBTileElements];
    int block_row, block_col;
    grouped_tile<kMmaBlockM, kMmaBlockN>(static_cast<int>(blockIdx.x), M, N, block_row, block_col);
    float acc[kMmaWarpTilesM][kMmaWarpTilesN][4] = {};
    // A block inside C, when the rows of A and B start on 16 bytes, has whole tiles up to the
    // last whole 64 columns of K. Its next step's loads are issued before this step
    // multiplies, into registers: they are in flight while the warps multiply, and only the
    // stores at the top of the next step wait for them. A loop of its own: with the edge
    // path below inside it, ptxas (at 255 registers) gave the prefetch nothing (H200: 37.9%
    // of cuBLAS at 4096³, against 42.8% so).
    int edge_from = 0;
    if (A_rows_aligned && B_rows_aligned && block_row + kMmaBlockM <= M && block_col + kMmaBlockN <= N) {
        edge_from = K / kMmaBlockK * kMmaBlockK;
        StepChunks chunks;
        if (edge_from > 0) fetch_step(chunks, A, B, N, K, block_row, block_col, 0);
        for (int t = 0; t < edge_from; t += kMmaBlockK) {
            store_step<LAYOUT>(chunks, A_tile, B_tile);
            // The warps read each other's rows of the tiles.
            __syncthreads();
            if (t + kMmaBlockK < edge_from) fetch_step(chunks, A, B, N, K, block_row, block_col, t + kMmaBlockK);
            multiply_tiles<LAYOUT>(A_tile, 0, B_tile, 0, acc);
            // Nobody overwrites the tiles while a slower warp still reads them.
            __syncthreads();
        }
    }
    // The rest: past C's edges, past K's last whole 64 columns, or rows not on 16 bytes. Whole
    // chunks where they are, element by element elsewhere, zeros outside the matrices.
    for (int t = edge_from; t < K; t += kMmaBlockK) {
        load_tile<LAYOUT, kMmaBlockM, kMmaBlockK>(A_tile, 0, A, M, K, block_row, t, A_rows_aligned);
        load_tile<LAYOUT, kMmaBlockK, kMmaBlockN>(B_tile, 0, B, K, N, t, block_col, B_rows_aligned);
        __syncthreads();
        multiply_tiles<LAYOUT>(A_tile, 0, B_tile, 0, acc);
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

// Start the asynchronous copy of one whole chunk, the 8 elements of `matrix` (rows of `cols`
// elements) from (row, col) on, which starts on 16 bytes, into chunk (r, c) of the swizzled
// tile that starts at element `base` of `tiles`. The caller commits it.
template <int COLS, class Tiles, class Matrix>
__device__ __forceinline__ void start_chunk_copy(Tiles& tiles, int base, Matrix matrix, int cols, int r, int c, int row,
                                                 int col) {
    // TODO(chapter10): 10b, step 1. One 16-byte asynchronous copy (chapter 8's
    //   __pipeline_memcpy_async) from the chunk's place in the matrix to its swizzled place in
    //   the stage: the same swizzled offset 10a's loads store to.
    (void)tiles, (void)base, (void)matrix, (void)cols, (void)r, (void)c, (void)row, (void)col;
}

// As load_tile<SharedLayout::swizzled, ROWS, COLS>, but a whole chunk that starts on 16 bytes
// is copied by start_chunk_copy; the other elements are stored as load_tile stores them.
// When the whole block lies inside the matrix and its rows start on 16 bytes, every chunk
// is copied with no check: a fixed, unrolled count, each chunk's place then a constant
// apart from the thread's first, where checks and a loop up to a bound would compute it
// again every time (without this branch 10b issued half as many instructions again as 10a,
// and ran slower than it on the H200).
template <int ROWS, int COLS, class Tiles, class Matrix>
__device__ void copy_tile_async(Tiles& tiles, int base, Matrix matrix, int rows, int cols, int row0, int col0,
                                bool rows_aligned) {
    constexpr int kChunksPerThread = ROWS * COLS / 8 / kMmaThreads;
    static_assert(kChunksPerThread * 8 * kMmaThreads == ROWS * COLS, "every thread copies the same number of chunks");
    if (rows_aligned && row0 + ROWS <= rows && col0 + COLS <= cols) {
#pragma unroll
        for (int i = 0; i < kChunksPerThread; ++i) {
            int r, c;
            chunk_place<COLS>(i, r, c);
            start_chunk_copy<COLS>(tiles, base, matrix, cols, r, c, row0 + r, col0 + c);
        }
        return;
    }
    for (int i = 0; i < kChunksPerThread; ++i) {
        int r, c;
        chunk_place<COLS>(i, r, c);
        const int row = row0 + r, col = col0 + c;
        if (rows_aligned && row < rows && col + 8 <= cols) {
            start_chunk_copy<COLS>(tiles, base, matrix, cols, r, c, row, col);
        } else {
            for (int e = 0; e < 8; ++e) {
                if (row < rows && col + e < cols) {
                    tiles[base + swizzled_offset(r, c + e, COLS)] = matrix[static_cast<size_t>(row) * cols + col + e];
                } else {
                    tiles[base + swizzled_offset(r, c + e, COLS)] = __float2bfloat16(0.0f);
                }
            }
        }
    }
}

// One stage is A's tile then B's, in the dynamic shared memory.
constexpr int kStageElements = kATileElements + kBTileElements;
constexpr size_t kPipelineBytes = kMmaStages * kStageElements * sizeof(__nv_bfloat16);

// Two blocks an SM, as 10a: 2 × 96 KiB of stages fit in the SM's 228 KiB, and the bound
// keeps ptxas within the 255 registers a thread that two blocks of 128 threads may have.
__global__ void __launch_bounds__(kMmaThreads, 2)
    mma_pipeline_gemm_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K,
                             bool A_rows_aligned, bool B_rows_aligned) {
    // kMmaStages stages of (A's tile, B's tile): 3 × 32 KiB, more than a block may declare
    // statically, so in the dynamic shared memory. Stage s's A tile starts at element
    // s * kStageElements, its B tile kATileElements later.
    extern __shared__ __align__(128) __nv_bfloat16 stages[];
    int block_row, block_col;
    grouped_tile<kMmaBlockM, kMmaBlockN>(static_cast<int>(blockIdx.x), M, N, block_row, block_col);
    const int tiles = (K + kMmaBlockK - 1) / kMmaBlockK;
    float acc[kMmaWarpTilesM][kMmaWarpTilesN][4] = {};

    // TODO(chapter10): 10b, step 2. Chapter 8's pipeline with kMmaStages stages:
    //   1. before the loop, start the copies of tiles 0 .. kMmaStages - 2 into stages 0 ..
    //      kMmaStages - 2 (those that exist), each followed by __pipeline_commit();
    //   2. for each tile t: wait until at most kMmaStages - 2 batches are in flight, which
    //      makes tile t's batch complete; a barrier (one a tile: after it, every thread's
    //      copies of tile t have landed, and every warp is done with tile t - 1); start the
    //      copies of tile t + kMmaStages - 1 (if it exists) into its stage, (t + kMmaStages -
    //      1) % kMmaStages, the stage tile t - 1 used; commit a batch always (an empty batch
    //      keeps the count); multiply_tiles<SharedLayout::swizzled> on stage t % kMmaStages.
    //   Each tile is two copy_tile_async calls: A's block of the block's rows and tile t's
    //   columns of K at the start of its stage, and B's block of tile t's rows of K and the
    //   block's columns kATileElements further in (see kStageElements above).
    (void)stages, (void)tiles, (void)A, (void)B, (void)K, (void)A_rows_aligned, (void)B_rows_aligned;
    store_accumulators(acc, C, M, N, block_row, block_col);
}

// ---- 10c: wgmma from TMA tiles -------------------------------------------------------------

// A block of two warpgroups computes a 128 × 256 tile of C: warpgroup g its rows 64 g to
// 64 g + 63, all 256 columns, as one wgmma.m64n256k16 per 16 steps of K. A stage holds one
// 64-wide step along K: A's 128 × 64 tile, then B's 64 × 256 tile as four boxes of 64 × 64,
// each written by one TMA copy in the 128-byte swizzle (the widest box it allows: 64 BF16 =
// 128 bytes per row). Every tile starts on 1024 bytes, where the swizzle's pattern of 8 rows
// of 128 bytes starts.
using WgmmaBarrier = cuda::barrier<cuda::thread_scope_block>;

constexpr int kWgmmaRowBytes = 128;                                      // a box row: 64 BF16
constexpr int kWgmmaBoxColumns = kWgmmaRowBytes / 2;                     // 64 columns of B a box
constexpr int kWgmmaATileBytes = kWgmmaBlockM * kWgmmaBlockK * 2;        // 16 KiB
constexpr int kWgmmaBBoxBytes = kWgmmaBlockK * kWgmmaBoxColumns * 2;     // 8 KiB: 64 rows of 128 bytes
constexpr int kWgmmaStageBytes = kWgmmaATileBytes + kWgmmaBlockN / kWgmmaBoxColumns * kWgmmaBBoxBytes;  // 48 KiB
// The dynamic shared memory of a ring of `stages` stages: the stages, then the barriers, and
// 1024 bytes to round the start up to a 1024-byte boundary.
constexpr size_t stage_ring_bytes(int stages) {
    return stages * kWgmmaStageBytes + 2 * stages * sizeof(WgmmaBarrier) + 1024;
}
constexpr size_t kWgmmaSharedBytes = stage_ring_bytes(kWgmmaStages);
static_assert(kWgmmaStageBytes % 1024 == 0 && kWgmmaATileBytes % 1024 == 0, "every tile starts on 1024 bytes");

// The ring in the block's dynamic shared memory (10c's and 10d's): `stages` stages from its
// first 1024-byte boundary, then full[s], stage s's tiles have landed (one arrival, the
// copies' issuer's, and the copies' bytes), then empty[s], stage s may be refilled
// (`empty_arrivals` arrivals). Called by every thread of the block: thread 0 initialises the
// barriers, and the block waits for it.
struct StageRing {
    unsigned char* stages;
    WgmmaBarrier* full;
    WgmmaBarrier* empty;
};
__device__ __forceinline__ StageRing stage_ring(unsigned char* shared, int stages, int empty_arrivals) {
    unsigned char* first = shared + (1024 - tutorial::shared_window_address(shared) % 1024) % 1024;
    WgmmaBarrier* full = reinterpret_cast<WgmmaBarrier*>(first + stages * kWgmmaStageBytes);
    WgmmaBarrier* empty = full + stages;
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s) {
            init(&full[s], 1);
            init(&empty[s], empty_arrivals);
        }
        // The barriers were written through ordinary stores; the copies complete them
        // through the async proxy, which must see them initialised.
        cuda::device::experimental::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    return StageRing{first, full, empty};
}

// ---- 10c, step 1: the shared-memory matrix descriptor ------------------------------------

__host__ __device__ std::uint64_t wgmma_descriptor(std::uint32_t start_address, std::uint32_t leading_byte_offset,
                                                   std::uint32_t stride_byte_offset) {
    // TODO(chapter10): 10c, step 1. The 64-bit descriptor of common/wgmma.h's table, with the
    //   128-byte swizzle: each of the three byte quantities encoded as the PTX ISA's
    //   matrix-descriptor-encode(x) (its low 18 bits, without the 4 lowest), in its field;
    //   base offset 0 (the tiles start on 1024 bytes); swizzle mode 1 in bits 62-63.
    (void)start_address, (void)leading_byte_offset, (void)stride_byte_offset;
    return 0;
}

// ---- 10c, step 2: a stage's tiles by the Tensor Memory Accelerator ------------------------

// Called by one thread (the issuer): ask the TMA for the tiles of the 64-wide step along K
// that starts at column k0 of A and row k0 of B, for the block's tile of C at (block_row,
// block_col), into `stage`; `full` counts their bytes.
__device__ void request_stage(unsigned char* stage, WgmmaBarrier& full, const CUtensorMap& A_map,
                              const CUtensorMap& B_map, int block_row, int block_col, int k0) {
    // TODO(chapter10): 10c, step 2. First arrive on `full`, telling it how many bytes this
    //   phase brings (cuda::device::barrier_arrive_tx: the whole stage, boxes outside the
    //   matrices included, since the TMA writes their zeros too); then the copies
    //   (cuda::device::experimental::cp_async_bulk_tensor_2d_global_to_shared, coordinates
    //   innermost first): A's box (64 columns of K, 128 rows) at the start of the stage, then
    //   B's four boxes (64 columns of N, 64 rows of K each), one after the other.
    (void)stage, (void)A_map, (void)B_map, (void)block_row, (void)block_col, (void)k0;
    (void)full.arrive();
}

// ---- 10c, step 3: the accumulators to C ---------------------------------------------------

// Write the calling warpgroup's accumulators, its 64 × 256 part of C starting at (row0,
// col0), the elements inside C only. One float at a time: storing two neighbours as one
// float2 needs them in a pair of registers, and the moves ptxas makes for that serialize
// the wgmmas (it reports C7514).
template <class Matrix>
__device__ void store_wgmma_accumulators(const float (&acc)[128], Matrix C, int M, int N, int row0, int col0) {
    const int warp = threadIdx.x / warpSize % 4, lane = threadIdx.x % warpSize;
    for (int j = 0; j < kWgmmaBlockN / 8; ++j) {
        for (int half = 0; half < 2; ++half) {
            // TODO(chapter10): 10c, step 3. acc[4 j + 2 half] and acc[4 j + 2 half + 1] are two
            //   neighbouring columns of one row of the warp's 16 (common/wgmma.h: the
            //   accumulators). Which row and columns of C? Store each where it lies inside C.
            (void)acc, (void)C, (void)M, (void)N, (void)row0, (void)col0, (void)warp, (void)lane;
        }
    }
}

// The corner of the tile of C that block `block` computes, in 10a's grouped order.
__device__ __forceinline__ void wgmma_tile_of(int block, int M, int N, int& block_row, int& block_col) {
    grouped_tile<kWgmmaBlockM, kWgmmaBlockN>(block, M, N, block_row, block_col);
}

__global__ void __launch_bounds__(kWgmmaThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ CUtensorMap A_map, const __grid_constant__ CUtensorMap B_map, float* C,
                      int M, int N, int K) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    // Compiled without sm_90a there is no wgmma; the host function refuses to launch this.
    __trap();
#else
    extern __shared__ __align__(1024) unsigned char wgmma_shared[];
    // full[s]: the issuer's arrival and the copies' bytes; empty[s]: every warp is done with
    // stage s (one arrival per warp).
    const StageRing ring = stage_ring(wgmma_shared, kWgmmaStages, kWgmmaThreads / 32);
    // [[maybe_unused]]: the exercise's file uses them only once its steps are written.
    [[maybe_unused]] unsigned char* stages = ring.stages;
    [[maybe_unused]] WgmmaBarrier* full = ring.full;
    [[maybe_unused]] WgmmaBarrier* empty = ring.empty;
    int block_row = 0, block_col = 0;
    wgmma_tile_of(blockIdx.x, M, N, block_row, block_col);
    const int warpgroup = threadIdx.x / 128;
    const int tiles = (K + kWgmmaBlockK - 1) / kWgmmaBlockK;
    const bool issuer = threadIdx.x == 0;
    if (issuer) {
        for (int t = 0; t < kWgmmaStages && t < tiles; ++t) {
            request_stage(stages + t * kWgmmaStageBytes, full[t], A_map, B_map, block_row, block_col, t * kWgmmaBlockK);
        }
    }
    // Not zeroed: the first wgmma does not accumulate (D = A·B). Zeroing them with ordinary
    // instructions would make ptxas serialize the wgmmas, which it reports (C7515).
    float acc[128];

    // TODO(chapter10): 10c, step 4. For each tile t along K, in stage s = t % kWgmmaStages:
    //   1. wait for phase t / kWgmmaStages of full[s] (wait_parity: its parity), then
    //      __syncwarp(), since the wgmma instructions are executed by whole warps together;
    //   2. wgmma_fence(acc); then for each 16 columns of K, one wgmma_m64n256k16_bf16, which
    //      accumulates into acc except the very first (acc starts undefined), with
    //      A's descriptor (this warpgroup's 64 rows of the stage's A tile, K-major: which
    //      start address, and which stride byte offset between groups of 8 rows of 128
    //      bytes? The leading byte offset is not used: give 16) and B's (the B tile, MN-major:
    //      the stride byte offset between groups of 8 rows along K, the leading byte offset
    //      between the 64-column boxes); then wgmma_commit_group();
    //   3. wgmma_wait_group<1>(acc): tile t - 1's wgmmas are then complete, so lane 0 of each
    //      warp releases its stage (an arrival on empty), and the issuer waits for that
    //      stage's release (its phase (t - 1) / kWgmmaStages) and refills it with tile
    //      t - 1 + kWgmmaStages, when there is one (request_stage).
    //   After the loop, wgmma_wait_group<0>(acc): every accumulator is complete.
    (void)full, (void)empty, (void)warpgroup, (void)tiles, (void)issuer;

    store_wgmma_accumulators(acc, C, M, N, block_row + warpgroup * 64, block_col);
#endif
}

// ---- 10d (going further): warp specialization and a persistent grid ---------------------

// 10c's tile (128 × 256), stages (48 KiB: A's 128 × 64 box, B's four 64 × 64 boxes) and
// barriers, with the roles split: warpgroup 0 is the producer, and its thread 0 alone
// issues every TMA copy; warpgroups 1 and 2 are the consumers, each 64 rows of the tile,
// which only wait, multiply and store. The grid is persistent: a block walks the tiles
// blockIdx.x, blockIdx.x + gridDim.x, ... of C, and its ring of stages runs on from one
// tile to the next, so that the producer fills the next tile's first stages while the
// consumers still store the last tile's accumulators.
//
// One running count, `step`, numbers the block's 64-wide steps along K over all its tiles:
// step i is in stage i % kSpecializedStages, its fill number there is i / kSpecializedStages,
// and that is also the phase of the stage's `full` barrier that brings it and of its `empty`
// barrier that releases it. Producer and consumers count the same steps in the same order,
// so each side derives every stage and parity from its own count, with no other agreement.
//
// After the ring's barriers, each of the 8 consumer warps has 16 rows of kStagingPitch floats
// of its own, where step 3 stages its accumulators on their way to C.
constexpr int kStagingFloats = 16 * kStagingPitch;  // one consumer warp's staging rows
constexpr size_t kSpecializedSharedBytes = stage_ring_bytes(kSpecializedStages) + 8 * kStagingFloats * sizeof(float);
// The most dynamic shared memory a Hopper block may opt in to: 227 KiB.
static_assert(kSpecializedSharedBytes <= 227 * 1024,
              "fewer stages, or less staging: they do not fit in a Hopper block's 227 KiB");
static_assert(kStagingPitch % 4 == 0 && kStagingPitch >= kStagingColumns && kWgmmaBlockN % kStagingColumns == 0 &&
                  16 * kStagingColumns % (4 * 32) == 0,
              "staged rows of whole 16-byte pieces, a whole number of them a lane");
// The producer's and consumers' registers add up to what the launch gives 384 threads: 64 K
// registers an SM, one block of kSpecializedThreads, rounded down to 8 a thread (ptxas: 168).
static_assert(128 * kProducerRegisters + 256 * kConsumerRegisters <= kSpecializedThreads * (65536 / kSpecializedThreads / 8 * 8),
              "setmaxnreg.inc would wait forever: the consumers ask for more registers than the producer gives back");

// ---- 10d, step 1: the producer ------------------------------------------------------------

// Called by one thread of the producer warpgroup: fill the stages with every step along K
// of every tile this block computes, in the consumers' order.
__device__ __forceinline__ void produce_stages(unsigned char* stages, WgmmaBarrier* full, WgmmaBarrier* empty,
                                               const CUtensorMap& A_map, const CUtensorMap& B_map, int M, int N, int K) {
    const int tiles = (M + kWgmmaBlockM - 1) / kWgmmaBlockM * ((N + kWgmmaBlockN - 1) / kWgmmaBlockN);
    const int k_steps = (K + kWgmmaBlockK - 1) / kWgmmaBlockK;
    // TODO(chapter10): 10d, step 1. For each tile of this block (the persistent loop: from
    //   blockIdx.x, gridDim.x apart; wgmma_tile_of gives its corner), for each of its steps
    //   along K, with one running count of steps that does not restart with the tile:
    //   the step's stage is the count modulo the stages. Unless this is the stage's very
    //   first fill, wait until both consumers released its previous fill (the parity of that
    //   fill's phase of `empty`), then request_stage, as 10c's issuer did.
    (void)stages, (void)full, (void)empty, (void)A_map, (void)B_map, (void)tiles, (void)k_steps;
}

// ---- 10d, step 2: a consumer ----------------------------------------------------------------

// Called by every thread of consumer warpgroup `consumer` (0 or 1: rows 64 consumer to
// 64 consumer + 63 of the tile): the k_steps steps along K of one tile into acc, from the
// block's step `step` on (which it advances past them), each stage released as soon as this
// warpgroup's wgmmas that read it are complete. Returns with every accumulator complete.
// Inlined, so that acc stays in registers.
__device__ __forceinline__ void consume_tile(float (&acc)[128], unsigned char* stages, WgmmaBarrier* full,
                                             WgmmaBarrier* empty, int consumer, int k_steps, int& step) {
    const bool releases = threadIdx.x % warpSize == 0;  // one arrival per warp on `empty`
    // TODO(chapter10): 10d, step 2. 10c's loop, with a step count that runs on from tile to
    //   tile and without the refills (the producer's now). For each of the tile's steps k:
    //   the stage and the parity of its `full` phase from the running count; wait, then
    //   __syncwarp(); wgmma_fence, the four wgmmas of 10c on this warpgroup's 64 rows of
    //   A's tile (your descriptors; only the tile's first wgmma does not accumulate: acc
    //   holds the previous tile), commit; wgmma_wait_group<1> makes the previous step's
    //   group complete, so one lane a warp releases that step's stage (an arrival on its
    //   `empty`). After the loop, wait for the last group too and release its stage: the
    //   next tile starts with nothing of this one in flight.
    (void)acc, (void)stages, (void)full, (void)empty, (void)consumer, (void)k_steps, (void)step, (void)releases;
}

// ---- 10d, step 3: the accumulators to C through shared memory -------------------------------

// Four neighbouring floats of C's row `row`, from column `col` on: one 16-byte store where all
// four lie inside C and their address allows it, else each one inside C alone.
template <class Matrix>
__device__ __forceinline__ void store_row_piece(Matrix C, int M, int N, int row, int col, const float4& piece) {
    if (row >= M || col >= N) return;
    const size_t first = static_cast<size_t>(row) * N + col;
    if (col + 3 < N && reinterpret_cast<std::uintptr_t>(&C[first]) % 16 == 0) {
        *reinterpret_cast<float4*>(&C[first]) = piece;
    } else {
        const float values[4] = {piece.x, piece.y, piece.z, piece.w};
        for (int e = 0; e < 4 && col + e < N; ++e) C[first + e] = values[e];
    }
}

// 10c's store_wgmma_accumulators writes each accumulator where it lies in C: one store of a
// warp puts 32 floats in 8 rows, two 4-byte floats of every 8 bytes, so each store touches 8
// rows' sectors and fills half of each, and a tile's 128 stores a thread queue up in the
// memory system while the tensor cores wait. This does what chapter 5 did for a transpose:
// the calling warp (16 of C's rows from row0 + 16 · its warp in the warpgroup, 256 columns
// from col0) writes 16 rows × kStagingColumns of its accumulators into its own `staging`
// rows (16 × kStagingPitch floats) in the fragment's layout, a pair of neighbouring floats
// at a time, then reads them back along the
// rows, 4 floats a lane, and stores them with store_row_piece: a store of the warp fills 4
// whole rows of 128 bytes.
template <class Rows, class Matrix>
__device__ void store_wgmma_accumulators_staged(const float (&acc)[128], Rows staging, Matrix C, int M, int N,
                                                int row0, int col0) {
    const int warp = threadIdx.x / warpSize % 4, lane = threadIdx.x % warpSize;
    const int warp_row = row0 + 16 * warp;
    constexpr int kPiecesPerRow = kStagingColumns / 4;                // 16-byte pieces of a staged row
    constexpr int kPiecesPerLane = 16 * kPiecesPerRow / 32;           // of the warp's 16 rows, over its 32 lanes
#pragma unroll
    for (int chunk = 0; chunk < kWgmmaBlockN / kStagingColumns; ++chunk) {
        // TODO(chapter10): 10d, step 3. For this chunk of kStagingColumns columns (col0 +
        //   chunk · kStagingColumns on): (1) write the lane's accumulators of those columns into
        //   staging, row r of the warp's 16 at r · kStagingPitch: as in 10c's store, acc[4 j +
        //   2 half] and acc[4 j + 2 half + 1] are two neighbouring columns of one row (which j
        //   are this chunk's?), written together as one float2, an 8-byte store;
        //   (2) __syncwarp(): the other lanes' values are read next;
        //   (3) the warp's kPiecesPerLane pieces a lane: piece q = i · 32 + lane is row
        //   q / kPiecesPerRow, columns 4 (q % kPiecesPerRow) to + 3 of the chunk, read as one
        //   float4 and stored with store_row_piece; (4) __syncwarp() before the next chunk
        //   overwrites the rows.
        (void)acc, (void)staging, (void)C, (void)M, (void)N, (void)warp_row, (void)col0, (void)lane;
        (void)kPiecesPerLane;
    }
}

// ---- 10d, step 4: the roles and the persistent loop -------------------------------------------

__global__ void __launch_bounds__(kSpecializedThreads, 1)
    wgmma_specialized_gemm_kernel(const __grid_constant__ CUtensorMap A_map, const __grid_constant__ CUtensorMap B_map,
                                  float* C, int M, int N, int K) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    // Compiled without sm_90a there is no wgmma nor setmaxnreg; the host function refuses to launch this.
    __trap();
#else
    extern __shared__ __align__(1024) unsigned char specialized_shared[];
    // full[s]: the producer's arrival and the copies' bytes; empty[s]: both consumers are done
    // with stage s (one arrival per consumer warp).
    const StageRing ring = stage_ring(specialized_shared, kSpecializedStages, 2 * 4);
    // [[maybe_unused]]: the exercise's file uses them only once its steps are written.
    [[maybe_unused]] unsigned char* stages = ring.stages;
    [[maybe_unused]] WgmmaBarrier* full = ring.full;
    [[maybe_unused]] WgmmaBarrier* empty = ring.empty;
    const int warpgroup = threadIdx.x / 128;
    // A consumer warp's staging rows (step 3), after the barriers; none for the producer's.
    // (auto, not float*: the CPU backend's profile then counts what goes through it.)
    [[maybe_unused]] auto staging = reinterpret_cast<float*>(empty + kSpecializedStages) +
                                    (warpgroup > 0 ? threadIdx.x / warpSize - 4 : 0) * kStagingFloats;
    const int tiles = (M + kWgmmaBlockM - 1) / kWgmmaBlockM * ((N + kWgmmaBlockN - 1) / kWgmmaBlockN);
    const int k_steps = (K + kWgmmaBlockK - 1) / kWgmmaBlockK;
    // TODO(chapter10): 10d, step 4. The roles. Warpgroup 0, the producer, first gives up
    //   registers (setmaxnreg_dec to kProducerRegisters: all its 128 threads execute it,
    //   before any of them branches), then its thread 0 alone calls produce_stages; the
    //   others have nothing left to do. Warpgroups 1 and 2 take registers
    //   (setmaxnreg_inc to kConsumerRegisters), then walk the same tiles as the producer, in
    //   the same order, with one running step count for all of them: consume_tile into
    //   their 128 accumulators, then store_wgmma_accumulators_staged (step 3) through the
    //   warp's staging rows, at the tile's corner plus this consumer's 64 rows.
    (void)stages, (void)full, (void)empty, (void)warpgroup, (void)tiles, (void)k_steps, (void)C, (void)staging;
#endif
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

// ---- 10c: the host side ------------------------------------------------------------------------

namespace {

#ifndef TUTORIAL_EMU
// Whether this program's kernels were compiled with sm_90a's features (wgmma), read by the
// host without copying anything back (no host code of the exercise copies device data:
// make grade refuses it): only when compiled with them does the probe declare shared
// memory, which cudaFuncGetAttributes reports. (The CPU backend runs wgmma always.)
constexpr int kProbeMarkBytes = 1024;
__global__ void wgmma_compiled_probe() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    volatile __shared__ char mark[kProbeMarkBytes];  // volatile: kept though nothing reads it
    mark[threadIdx.x] = 1;
#endif
}
#endif

// wgmma is an arch-specific feature of compute capability 9.0 (sm_90a): neither older GPUs
// nor newer ones (Blackwell's tensor cores take other instructions) run it.
void require_wgmma(const char* function) {
    int device = 0, major = 0, minor = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    if (major != 9 || minor != 0) {
        throw std::runtime_error(std::string(function) + ": wgmma needs sm_90a, the arch-specific features of a Hopper "
                                 "GPU (compute capability 9.0); this GPU is " + std::to_string(major) + "." +
                                 std::to_string(minor) + ". The CPU backend runs it (BACKEND=emu).");
    }
    static const bool compiled = [] {
#ifdef TUTORIAL_EMU
        return true;  // the CPU backend runs wgmma whatever the architecture
#else
        cudaFuncAttributes probe{};
        CUDA_CHECK(cudaFuncGetAttributes(&probe, wgmma_compiled_probe));
        return probe.sharedSizeBytes >= static_cast<size_t>(kProbeMarkBytes);
#endif
    }();
    if (!compiled) {
        throw std::runtime_error(std::string(function) + ": this program was compiled without sm_90a (ARCH=sm_90?), so "
                                 "it has no wgmma instructions: build it with ARCH=sm_90a, or without ARCH on this "
                                 "Hopper GPU.");
    }
}

// The BF16 rows × cols matrix as the TMA can read it (tutorial::rows_on_16_bytes): itself when
// it starts on 16 bytes and its rows are a multiple of 8 elements (16 bytes), else a copy in
// `scratch` whose rows are rounded up to 8 elements (the elements past `cols` are never read:
// the tensor map says the matrix has `cols` columns and the TMA fills the rest of a box with
// zeros). Returns the matrix the tensor map describes and sets `pitch` to its row pitch in
// elements.
const __nv_bfloat16* tma_readable(const __nv_bfloat16* matrix, int rows, int cols,
                                  tutorial::ScratchBuffer<__nv_bfloat16>& scratch, int& pitch) {
    pitch = (cols + 7) / 8 * 8;
    return tutorial::rows_on_16_bytes(matrix, rows, cols, rows, pitch, scratch);
}

// A tensor map of a rows × cols BF16 matrix whose rows are `pitch` elements apart, read in
// boxes of box_rows rows of 64 columns (128 bytes) that the TMA writes in the 128-byte
// swizzle. The driver's cuTensorMapEncodeTiled makes it, reached through the runtime as in
// chapter 8, so the program needs no link to the driver library (-lcuda).
CUtensorMap make_tile_map(const char* function, const __nv_bfloat16* matrix, int rows, int cols, int pitch,
                          int box_rows) {
    PFN_cuTensorMapEncodeTiled_v12000 encode_tiled = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode_tiled),
                                                12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || encode_tiled == nullptr) {
        throw std::runtime_error(std::string(function) + ": the driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer)");
    }
    const cuuint64_t sizes[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
    const cuuint64_t row_stride_bytes[1] = {static_cast<cuuint64_t>(pitch) * sizeof(__nv_bfloat16)};
    const cuuint32_t box[2] = {static_cast<cuuint32_t>(kWgmmaBoxColumns), static_cast<cuuint32_t>(box_rows)};
    const cuuint32_t element_strides[2] = {1, 1};
    CUtensorMap map;
    const CUresult result = encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<__nv_bfloat16*>(matrix),
                                         sizes, row_stride_bytes, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                         CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS) {
        throw std::runtime_error(std::string(function) + ": cuTensorMapEncodeTiled failed with CUresult " +
                                 std::to_string(static_cast<int>(result)) + " for a " + std::to_string(rows) + " x " +
                                 std::to_string(cols) + " matrix");
    }
    return map;
}

// What 10c and 10d do before their kernel: check the arguments and the GPU, make A and B
// readable by the TMA (scratch copies where a row does not start on 16 bytes), make their
// tensor maps (A's boxes: 64 columns of K, 128 rows; B's: 64 columns of N, 64 rows of K),
// then call launch(A_map, B_map) while the scratch copies live.
template <class Launch>
void with_tile_maps(const char* function, const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C, int M, int N,
                    int K, Launch launch) {
    require_arguments(function, A, B, C, M, N, K);
    require_wgmma(function);
    tutorial::ScratchBuffer<__nv_bfloat16> A_scratch, B_scratch;
    int A_pitch = 0, B_pitch = 0;
    const __nv_bfloat16* A_read = tma_readable(A, M, K, A_scratch, A_pitch);
    const __nv_bfloat16* B_read = tma_readable(B, K, N, B_scratch, B_pitch);
    launch(make_tile_map(function, A_read, M, K, A_pitch, kWgmmaBlockM),
           make_tile_map(function, B_read, K, N, B_pitch, kWgmmaBlockK));
}

}  // namespace

tutorial::LaunchConfig wgmma_gemm_launch_config(int M, int N) {
    const int tiles = tutorial::ceil_div(M, kWgmmaBlockM) * tutorial::ceil_div(N, kWgmmaBlockN);
    return tutorial::LaunchConfig{dim3(tiles), dim3(kWgmmaThreads)};
}

void wgmma_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K) {
    with_tile_maps("wgmma_gemm", A, B, C, M, N, K, [&](const CUtensorMap& A_map, const CUtensorMap& B_map) {
        // Above 48 KiB of dynamic shared memory a kernel must opt in, once.
        static const cudaError_t opted_in = cudaFuncSetAttribute(
            wgmma_gemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kWgmmaSharedBytes));
        CUDA_CHECK(opted_in);
        const tutorial::LaunchConfig launch = wgmma_gemm_launch_config(M, N);
        wgmma_gemm_kernel<<<launch.grid, launch.block, kWgmmaSharedBytes>>>(A_map, B_map, C, M, N, K);
        CUDA_CHECK_KERNEL("wgmma_gemm_kernel");
    });
}

// ---- 10d: the host side ------------------------------------------------------------------------

tutorial::LaunchConfig wgmma_specialized_gemm_launch_config(int M, int N, int max_blocks) {
    int device = 0, multiprocessors = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    const long long tiles = static_cast<long long>(tutorial::ceil_div(M, kWgmmaBlockM)) * tutorial::ceil_div(N, kWgmmaBlockN);
    const long long blocks = std::min<long long>({tiles, multiprocessors, max_blocks});
    return tutorial::LaunchConfig{dim3(static_cast<unsigned>(blocks)), dim3(kSpecializedThreads)};
}

void wgmma_specialized_gemm_on(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K,
                               int max_blocks) {
    tutorial::require_positive("wgmma_specialized_gemm", "max_blocks", max_blocks);
    with_tile_maps("wgmma_specialized_gemm", A, B, C, M, N, K, [&](const CUtensorMap& A_map, const CUtensorMap& B_map) {
        static const cudaError_t opted_in =
            cudaFuncSetAttribute(wgmma_specialized_gemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(kSpecializedSharedBytes));
        CUDA_CHECK(opted_in);
        const tutorial::LaunchConfig launch = wgmma_specialized_gemm_launch_config(M, N, max_blocks);
        wgmma_specialized_gemm_kernel<<<launch.grid, launch.block, kSpecializedSharedBytes>>>(A_map, B_map, C, M, N, K);
        CUDA_CHECK_KERNEL("wgmma_specialized_gemm_kernel");
    });
}

void wgmma_specialized_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K) {
    // Never more blocks than SMs: wgmma_specialized_gemm_launch_config caps them there.
    wgmma_specialized_gemm_on(A, B, C, M, N, K, std::numeric_limits<int>::max());
}
