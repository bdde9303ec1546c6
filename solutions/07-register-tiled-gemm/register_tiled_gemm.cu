// Chapter 7: register-tiled GEMM, from 1D register tiling to warp tiles, correct for
// any M, N, K.
//
// Reference solution.
//
// The steps are 7a, 7b, 7c, then (going further) 7d. The host functions at the end are
// written for you; they choose the kernels' template arguments and the float4 paths.
//
// Every matrix is row-major: element (r, c) of a matrix with `cols` columns is at
// index r * cols + c.
// BEGIN SOLUTION
// Each step keeps chapter 2's scheme (a block walks along K, staging a tile of A and a
// tile of B in shared memory per phase) and changes one thing:
//   7a  a thread computes TM outputs of one column: each B value read from shared
//       memory serves TM multiply-adds;
//   7b  a thread computes a TM x TN block: an outer product of TM values of A and TN
//       values of B, both held in registers, per step along K;
//   7c  global loads move 16 bytes (float4) at a time, and the tile of A is stored
//       transposed so that a thread's TM values of A are consecutive in shared memory;
//   7d  each warp owns a warp tile of C, and the next phase's tiles are fetched from
//       global memory into registers while the current phase is being multiplied.
// END SOLUTION

#include "register_tiled_gemm.h"

#include "cuda_check.h"
#include "launch_config.h"
#include "gemm/gemm_reference.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

// ---- Shared by 7a and 7b: a tile loaded element by element --------------------------
// Load the ROWS x COLS tile whose top-left element is (row0, col0) of a rows x cols
// row-major matrix X into `tile`. load_phase_tiles, below it, calls it for a phase's tile
// of A and its tile of B.
// X's type is a template parameter, as in the helpers below, so that the CPU backend
// keeps checking and counting the loads through the kernel's pointer.
template <int ROWS, int COLS, int THREADS, class Tile, class Global>
__device__ __forceinline__ void load_tile(Tile& tile, Global X, int rows, int cols, int row0, int col0) {
    // BEGIN SOLUTION: 7a, step 1. The block's THREADS threads share the ROWS * COLS
    //   elements: number the elements row by row and let each thread take every THREADS-th,
    //   starting from its own index, so that consecutive threads load consecutive elements
    //   of a row. Store 0.0f for elements outside X, as in chapter 2.
    //| (void)tile, (void)X, (void)rows, (void)cols, (void)row0, (void)col0;
    // Consecutive threads load consecutive elements of a row (coalesced); elements
    // outside X are stored as 0 so that partial tiles need no special case in the
    // multiply-adds.
    for (int i = threadIdx.x; i < ROWS * COLS; i += THREADS) {
        const int r = i / COLS, c = i % COLS;
        const int row = row0 + r, col = col0 + c;
        tile[r][c] = (row < rows && col < cols) ? X[row * cols + col] : 0.0f;
    }
    // END SOLUTION
}

// The two tiles of the phase that starts at column k0 of A (row k0 of B), for a block of
// THREADS threads whose tile of C starts at (block_row, block_col): A's BM x BK tile and
// B's BK x BN tile, each by load_tile.
template <int BM, int BN, int BK, int THREADS, class ATile, class BTile, class Global>
__device__ __forceinline__ void load_phase_tiles(ATile& A_tile, BTile& B_tile, Global A, Global B, int M, int N, int K,
                                                 int block_row, int block_col, int k0) {
    load_tile<BM, BK, THREADS>(A_tile, A, M, K, block_row, k0);
    load_tile<BK, BN, THREADS>(B_tile, B, K, N, k0, block_col);
}

// ---- 7a: 1D register tiling -----------------------------------------------------------
// (BM / TM) x BN threads; thread t owns column t % BN of the block's tile and the TM
// rows starting at (t / BN) * TM.
// BEGIN SOLUTION
// Per phase it reads one B value and TM A values from shared memory for TM
// multiply-adds, where chapter 2 read two values per multiply-add.
// END SOLUTION
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__((BM / TM) * BN)
    gemm_1d_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // BEGIN SOLUTION: 7a, step 2. Declare the tiles in shared memory: A's is BM x BK
    //   floats, B's BK x BN, named A_tile and B_tile. Compute this block's first row and
    //   column of C, the thread's column of the tile and the first of its TM rows (the
    //   BN threads of one row of threads share a column each), and TM running sums, zeroed.
    constexpr int kThreads = (BM / TM) * BN;
    __shared__ float A_tile[BM][BK];
    __shared__ float B_tile[BK][BN];

    const int tid = threadIdx.x;
    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;
    const int thread_col = tid % BN;
    const int thread_row = tid / BN * TM;  // the first of this thread's TM rows in the tile

    float sum[TM] = {};
    // END SOLUTION

    // BEGIN SOLUTION: 7a, step 3. Loop over the phases, k0 = 0, BK, 2*BK, ... while k0 < K:
    //   - load the BM x BK tile of A at (block row, k0) and the BK x BN tile of B at
    //     (k0, block column): load_phase_tiles (there are (BM / TM) * BN threads);
    //   - __syncthreads();
    //   - for each k < BK: read B_tile[k][column] ONCE into a register, then add
    //     A_tile[first row + i][k] * that register to sum[i] for i < TM;
    //   - __syncthreads().
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_phase_tiles<BM, BN, BK, kThreads>(A_tile, B_tile, A, B, M, N, K, block_row, block_col, k0);
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            // One shared read of B, kept in a register, serves TM multiply-adds.
            const float b = B_tile[k][thread_col];
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                sum[i] += A_tile[thread_row + i][k] * b;
            }
        }
        __syncthreads();
    }
    // END SOLUTION

    // BEGIN SOLUTION: 7a, step 4. Store sum[i] in C(block row + first row + i, block
    //   column + column), for the elements inside C only.
    const int col = block_col + thread_col;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = block_row + thread_row + i;
        if (row < M && col < N) {
            C[row * N + col] = sum[i];
        }
    }
    // END SOLUTION
}

// ---- 7b: 2D register tiling -----------------------------------------------------------
// (BM / TM) x (BN / TN) threads, each computing a TM x TN block of the tile.
// BEGIN SOLUTION
// Per step along K it reads TM + TN values from shared memory for TM * TN multiply-adds.
// END SOLUTION
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    gemm_2d_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // BEGIN SOLUTION: 7b, step 1. The same tiles as 7a (now with (BM / TM) * (BN / TN)
    //   threads). The thread's TM x TN block of C: its threads are laid out BN / TN to a
    //   row of the tile, so where does thread t's block start? Keep TM x TN running sums,
    //   zeroed, and two register arrays, float a[TM] and b[TN].
    constexpr int kThreads = (BM / TM) * (BN / TN);
    __shared__ float A_tile[BM][BK];
    __shared__ float B_tile[BK][BN];

    const int tid = threadIdx.x;
    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;
    const int thread_row = tid / (BN / TN) * TM;  // first row of this thread's block of C
    const int thread_col = tid % (BN / TN) * TN;  // its first column

    float sum[TM][TN] = {};
    float a[TM], b[TN];
    // END SOLUTION

    // BEGIN SOLUTION: 7b, step 2. Loop over the phases as in 7a: load both tiles
    //   (load_phase_tiles, with this kernel's thread count), __syncthreads(); then, for each k < BK, copy the thread's TM
    //   values of column k of A_tile into a[] and its TN values of row k of B_tile into
    //   b[], and add the outer product: sum[i][j] += a[i] * b[j] for every i < TM, j < TN.
    //   TM + TN shared reads now serve TM * TN multiply-adds. __syncthreads().
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_phase_tiles<BM, BN, BK, kThreads>(A_tile, B_tile, A, B, M, N, K, block_row, block_col, k0);
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = A_tile[thread_row + i][k];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = B_tile[k][thread_col + j];
            // The outer product: every register of a meets every register of b.
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) sum[i][j] += a[i] * b[j];
            }
        }
        __syncthreads();
    }
    // END SOLUTION

    // BEGIN SOLUTION: 7b, step 3. Store the TM x TN sums, each only if inside C.
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = block_row + thread_row + i;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int col = block_col + thread_col + j;
            if (row < M && col < N) C[row * N + col] = sum[i][j];
        }
    }
    // END SOLUTION
}

// ---- Shared by 7c and 7d: tiles moved as quads of four floats --------------------------
// A quad is four consecutive floats of a row: of A along K, of B along N. A thread
// fetches its share of the quads of a phase into registers, then stores them into
// shared memory, so that 7d can fetch the next phase while it multiplies this one.
//
// The fast path, taken by every tile wholly inside the matrix, loads a quad with one
// float4 load and no checks. It needs rows that start on 16 bytes: VECTOR_A says the
// rows of A do (K % 4 == 0 and A 16-byte aligned), VECTOR_B the same of B (N % 4 == 0).
// Otherwise, and for the tiles that cross the edge, four scalar loads, each checked,
// fill a quad, with 0 for elements outside the matrix.

// Fetch the ROWS x COLS tile whose top-left element is (row0, col0) of a rows x cols
// row-major matrix: A's tile is fetch_tile<BM, BK>(A, ..., M, K, block_row, k0), B's
// fetch_tile<BK, BN>(B, ..., K, N, k0, block_col). VECTOR says the matrix's rows start
// on 16 bytes (VECTOR_A for A, VECTOR_B for B).
template <int ROWS, int COLS, int THREADS, bool VECTOR, class Global>
__device__ __forceinline__ void fetch_tile(Global X, float4 (&quads)[ROWS * COLS / 4 / THREADS], int rows, int cols,
                                           int row0, int col0) {
    // BEGIN SOLUTION: 7c, step 1. The tile holds ROWS * COLS / 4 quads, numbered row by row;
    //   this thread fetches every THREADS-th quad from its own index into quads[q], so that
    //   consecutive threads fetch consecutive quads of a row. Which row of X, and which four
    //   columns, is quad number i?
    //   - If the whole tile is inside X (row0 + ROWS <= rows and col0 + COLS <= cols) and
    //     VECTOR: one 16-byte load, *reinterpret_cast<const float4*>(&X[row * cols + col]).
    //   - If it is inside but !VECTOR: make_float4 of the four elements.
    //   - Otherwise: make_float4 of the four elements, 0.0f for each one outside X.
    //| (void)X, (void)rows, (void)cols, (void)row0, (void)col0;
    //| for (float4& quad : quads) quad = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const bool inside = row0 + ROWS <= rows && col0 + COLS <= cols;
#pragma unroll
    for (int q = 0; q < ROWS * COLS / 4 / THREADS; ++q) {
        const int i = threadIdx.x + q * THREADS;
        const int row = row0 + i / (COLS / 4);
        const int col = col0 + i % (COLS / 4) * 4;
        if (VECTOR && inside) {
            quads[q] = *reinterpret_cast<const float4*>(&X[row * cols + col]);
        } else if (inside) {
            quads[q] = make_float4(X[row * cols + col], X[row * cols + col + 1], X[row * cols + col + 2],
                                   X[row * cols + col + 3]);
        } else {
            const bool in_row = row < rows;
            quads[q] = make_float4(in_row && col < cols ? X[row * cols + col] : 0.0f,
                                   in_row && col + 1 < cols ? X[row * cols + col + 1] : 0.0f,
                                   in_row && col + 2 < cols ? X[row * cols + col + 2] : 0.0f,
                                   in_row && col + 3 < cols ? X[row * cols + col + 3] : 0.0f);
        }
    }
    // END SOLUTION
}

// Store the quads of A transposed, A_t[k][m] = A(m, k): a thread's TM values of A for
// one k are then consecutive, two float4 reads instead of TM scalar ones. The row
// length BM + PAD spreads the four elements of a quad over different banks (see the
// lesson); it stays a multiple of 4 so that float4 reads of a row stay aligned.
template <int BM, int BK, int THREADS, class TileA>
__device__ __forceinline__ void store_tile_a(TileA& A_t, const float4 (&quads)[BM * BK / 4 / THREADS]) {
    // BEGIN SOLUTION: 7c, step 2. For each of this thread's quads (numbered as in
    //   fetch_tile for A: quad i is row m of the tile, first column k, with BK / 4 quads to a row),
    //   store its four elements down column m of A_t, one to a row of A_t: the quad's four
    //   consecutive k become four consecutive rows.
    //| (void)A_t, (void)quads;
#pragma unroll
    for (int q = 0; q < BM * BK / 4 / THREADS; ++q) {
        const int i = threadIdx.x + q * THREADS;
        const int m = i / (BK / 4);
        const int k = i % (BK / 4) * 4;
        A_t[k][m] = quads[q].x;
        A_t[k + 1][m] = quads[q].y;
        A_t[k + 2][m] = quads[q].z;
        A_t[k + 3][m] = quads[q].w;
    }
    // END SOLUTION
}

// Store the quads of B as they are, one float4 store each.
template <int BN, int BK, int THREADS, class TileB>
__device__ __forceinline__ void store_tile_b(TileB& B_tile, const float4 (&quads)[BK * BN / 4 / THREADS]) {
#pragma unroll
    for (int q = 0; q < BK * BN / 4 / THREADS; ++q) {
        const int i = threadIdx.x + q * THREADS;
        *reinterpret_cast<float4*>(&B_tile[i / (BN / 4)][i % (BN / 4) * 4]) = quads[q];
    }
}

// Copy COUNT floats (a multiple of 4) of a row of a shared tile, from `first` on, into
// the registers to[0 .. COUNT - 1], four at a time: one float4 read each, so `first`
// must be 16-byte aligned.
template <int COUNT, class SharedFloat>
__device__ __forceinline__ void read_quads(float* to, SharedFloat first) {
#pragma unroll
    for (int i = 0; i < COUNT; i += 4) {
        const float4 v = *reinterpret_cast<const float4*>(&first[i]);
        to[i] = v.x, to[i + 1] = v.y, to[i + 2] = v.z, to[i + 3] = v.w;
    }
}

// Store a TM x TN block of sums at (row0, col0) of C. A block wholly inside C, with rows
// that start on 16 bytes (VECTOR_C: N % 4 == 0 and C aligned; the launchers pass
// VECTOR_B, which they only set when C's rows are aligned as well), stores float4s;
// others check each element.
template <int TM, int TN, bool VECTOR_C, class GlobalC>
__device__ __forceinline__ void store_block_c(GlobalC C, const float (&sum)[TM][TN], int M, int N, int row0,
                                              int col0) {
    if (VECTOR_C && row0 + TM <= M && col0 + TN <= N) {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                *reinterpret_cast<float4*>(&C[(row0 + i) * N + col0 + j]) =
                    make_float4(sum[i][j], sum[i][j + 1], sum[i][j + 2], sum[i][j + 3]);
            }
        }
    } else {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
#pragma unroll
            for (int j = 0; j < TN; ++j) {
                if (row0 + i < M && col0 + j < N) C[(row0 + i) * N + col0 + j] = sum[i][j];
            }
        }
    }
}

// ---- 7c: float4 loads, A transposed ---------------------------------------------------
// 7b's thread layout and tile, with its loads and stores in quads (above).
template <int BM, int BN, int BK, int TM, int TN, int PAD, bool VECTOR_A, bool VECTOR_B>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    gemm_vectorized_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // BEGIN SOLUTION: 7c, step 3. As 7b, with the tiles A_t (A transposed: BK rows of
    //   BM + PAD floats) and B_tile (BK x BN), both in shared memory and aligned to 16
    //   bytes (__align__(16)) for the float4 reads,
    //   and two float4 register arrays, a_quads[BM * BK / 4 / threads] and
    //   b_quads[BK * BN / 4 / threads]. Each phase: fetch_tile of A and of B (as
    //   its comment shows), store_tile_a, store_tile_b, __syncthreads(); then for each k read a[] from
    //   A_t[k][first row ...] and b[] from B_tile[k][first column ...], four floats at a
    //   time (read_quads<TM>(a, &A_t[k][first row])), and add the outer product;
    //   __syncthreads(). At the end, store_block_c<TM, TN, VECTOR_B>(C, sum, M, N,
    //   first row of the thread's block in C, its first column).
    constexpr int kThreads = (BM / TM) * (BN / TN);
    static_assert(BM * BK % (4 * kThreads) == 0 && BK * BN % (4 * kThreads) == 0,
                  "every thread must load the same number of quads");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && PAD % 4 == 0, "float4 reads of shared memory need multiples of 4");
    __shared__ __align__(16) float A_t[BK][BM + PAD];
    __shared__ __align__(16) float B_tile[BK][BN];

    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;
    const int thread_row = threadIdx.x / (BN / TN) * TM;
    const int thread_col = threadIdx.x % (BN / TN) * TN;

    float4 a_quads[BM * BK / 4 / kThreads], b_quads[BK * BN / 4 / kThreads];
    float sum[TM][TN] = {};
    float a[TM], b[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        fetch_tile<BM, BK, kThreads, VECTOR_A>(A, a_quads, M, K, block_row, k0);
        fetch_tile<BK, BN, kThreads, VECTOR_B>(B, b_quads, K, N, k0, block_col);
        store_tile_a<BM, BK, kThreads>(A_t, a_quads);
        store_tile_b<BN, BK, kThreads>(B_tile, b_quads);
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            read_quads<TM>(a, &A_t[k][thread_row]);
            read_quads<TN>(b, &B_tile[k][thread_col]);
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) sum[i][j] += a[i] * b[j];
            }
        }
        __syncthreads();
    }
    store_block_c<TM, TN, VECTOR_B>(C, sum, M, N, block_row + thread_row, block_col + thread_col);
    // END SOLUTION
}

// ---- 7d: warp tiles, double buffering ------------------------------------------------
// The block's BM x BN tile is cut into warp tiles of WM x WN, one per warp. A warp tile
// is cut into WM_ITER x WN_ITER sub-tiles of (WM / WM_ITER) x (WN / WN_ITER); the 32
// threads of the warp lay a grid over a sub-tile, each owning TM x TN elements, and
// every thread visits the same place in each sub-tile. So a thread's TN values of B
// are 4-float groups that neighbouring threads read side by side (no bank conflicts),
// and a warp's shared reads cover only its own WM + WN values per step along K.
//
// DOUBLE_BUFFER: two copies of each shared tile. While the block multiplies one, its
// threads have already issued the global loads of the next phase into registers; they
// store them into the other copy afterwards, so one barrier per phase suffices.
template <int BM, int BN, int BK, int WM, int WN, int WN_ITER, int TM, int TN, int PAD, bool DOUBLE_BUFFER>
struct Warptile {
    static constexpr int kWarps = (BM / WM) * (BN / WN);
    static constexpr int kThreads = kWarps * 32;
    static constexpr int kWmIter = WM * WN / (32 * TM * TN * WN_ITER);  ///< sub-tiles along M
    static constexpr int kSubM = WM / kWmIter;                          ///< rows of a sub-tile
    static constexpr int kSubN = WN / WN_ITER;                          ///< columns of a sub-tile
    static constexpr int kStages = DOUBLE_BUFFER ? 2 : 1;
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile");
    static_assert(kWmIter >= 1 && (kSubM / TM) * (kSubN / TN) == 32, "a sub-tile must hold 32 threads' blocks");
    static_assert(BM * BK % (4 * kThreads) == 0 && BK * BN % (4 * kThreads) == 0,
                  "every thread must load the same number of quads");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && PAD % 4 == 0, "float4 reads of shared memory need multiples of 4");
    static constexpr std::size_t kSharedBytes = sizeof(float) * kStages * BK * (BM + PAD + BN);
    static_assert(kSharedBytes <= 48 * 1024, "static shared memory is limited to 48 KB per block");
};

template <int BM, int BN, int BK, int WM, int WN, int WN_ITER, int TM, int TN, int PAD, bool DOUBLE_BUFFER,
          bool VECTOR_A, bool VECTOR_B>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32)
    gemm_warptiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    using Shape = Warptile<BM, BN, BK, WM, WN, WN_ITER, TM, TN, PAD, DOUBLE_BUFFER>;
    // BEGIN SOLUTION: 7d, step 1 (going further). Tiles as in 7c, but Shape::kStages copies
    //   of each (a leading dimension of kStages). The thread's warp and its lane in it. The
    //   warps tile the block's tile row by row, BN / WN warp tiles to a row: where does this
    //   warp's tile start? In each sub-tile the 32 lanes lay a grid of TM x TN blocks, row
    //   by row, kSubN / TN to a row: where does this lane's block start? (The lesson's figure
    //   draws both.) It keeps kWmIter * TM x WN_ITER * TN running sums.
    constexpr int kThreads = Shape::kThreads, kWmIter = Shape::kWmIter, kSubM = Shape::kSubM,
                  kSubN = Shape::kSubN, kStages = Shape::kStages;
    __shared__ __align__(16) float A_t[kStages][BK][BM + PAD];
    __shared__ __align__(16) float B_tile[kStages][BK][BN];

    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = warp / (BN / WN) * WM;  // first row of this warp's tile in the block's tile
    const int warp_col = warp % (BN / WN) * WN;
    const int thread_row = lane / (kSubN / TN) * TM;  // first row of this thread's block in a sub-tile
    const int thread_col = lane % (kSubN / TN) * TN;

    float4 a_quads[BM * BK / 4 / kThreads], b_quads[BK * BN / 4 / kThreads];
    float sum[kWmIter * TM][WN_ITER * TN] = {};
    float a[kWmIter * TM], b[WN_ITER * TN];
    // END SOLUTION

    // BEGIN SOLUTION: 7d, step 2. Fetch and store the first phase's tiles into copy 0,
    //   __syncthreads(). Then for each phase k0: if DOUBLE_BUFFER and there is a next
    //   phase, fetch its tiles into the registers now; multiply the current copy (for each
    //   k: a[] gathers the thread's TM values of each of the kWmIter sub-tiles, b[] its
    //   TN values of each of the WN_ITER sub-tiles, then the outer product); then, with
    //   DOUBLE_BUFFER, store the fetched quads into the other copy, switch copies and
    //   __syncthreads() once; without, __syncthreads(), fetch and store the next phase
    //   into copy 0, __syncthreads().
    fetch_tile<BM, BK, kThreads, VECTOR_A>(A, a_quads, M, K, block_row, 0);
    fetch_tile<BK, BN, kThreads, VECTOR_B>(B, b_quads, K, N, 0, block_col);
    store_tile_a<BM, BK, kThreads>(A_t[0], a_quads);
    store_tile_b<BN, BK, kThreads>(B_tile[0], b_quads);
    __syncthreads();

    int stage = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool has_next = k0 + BK < K;
        if (DOUBLE_BUFFER && has_next) {
            // Issued now, used after the multiply-adds below: their latency hides behind them.
            fetch_tile<BM, BK, kThreads, VECTOR_A>(A, a_quads, M, K, block_row, k0 + BK);
            fetch_tile<BK, BN, kThreads, VECTOR_B>(B, b_quads, K, N, k0 + BK, block_col);
        }

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int wm = 0; wm < kWmIter; ++wm) {
                read_quads<TM>(&a[wm * TM], &A_t[stage][k][warp_row + wm * kSubM + thread_row]);
            }
#pragma unroll
            for (int wn = 0; wn < WN_ITER; ++wn) {
                read_quads<TN>(&b[wn * TN], &B_tile[stage][k][warp_col + wn * kSubN + thread_col]);
            }
#pragma unroll
            for (int i = 0; i < kWmIter * TM; ++i) {
#pragma unroll
                for (int j = 0; j < WN_ITER * TN; ++j) sum[i][j] += a[i] * b[j];
            }
        }

        if (DOUBLE_BUFFER) {
            if (has_next) {
                // The other copy was last read in the previous phase, which every thread
                // has finished: the barrier at its end says so.
                store_tile_a<BM, BK, kThreads>(A_t[stage ^ 1], a_quads);
                store_tile_b<BN, BK, kThreads>(B_tile[stage ^ 1], b_quads);
                stage ^= 1;
            }
            __syncthreads();
        } else {
            __syncthreads();  // everyone is done reading the tiles before they are overwritten
            if (has_next) {
                fetch_tile<BM, BK, kThreads, VECTOR_A>(A, a_quads, M, K, block_row, k0 + BK);
                fetch_tile<BK, BN, kThreads, VECTOR_B>(B, b_quads, K, N, k0 + BK, block_col);
                store_tile_a<BM, BK, kThreads>(A_t[0], a_quads);
                store_tile_b<BN, BK, kThreads>(B_tile[0], b_quads);
            }
            __syncthreads();
        }
    }
    // END SOLUTION

    // BEGIN SOLUTION: 7d, step 3. Store each of the kWmIter x WN_ITER blocks of TM x TN
    //   sums with store_block_c<TM, TN, VECTOR_B>, at the sub-tile's place in C.
    //| (void)sizeof(Shape);
    // Each thread's sums are WM_ITER x WN_ITER blocks of TM x TN, one per sub-tile.
#pragma unroll
    for (int wm = 0; wm < kWmIter; ++wm) {
#pragma unroll
        for (int wn = 0; wn < WN_ITER; ++wn) {
            float block[TM][TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) block[i][j] = sum[wm * TM + i][wn * TN + j];
            }
            store_block_c<TM, TN, VECTOR_B>(C, block, M, N,
                                                        block_row + warp_row + wm * kSubM + thread_row,
                                                        block_col + warp_col + wn * kSubN + thread_col);
        }
    }
    // END SOLUTION
}

// ---- Host side -----------------------------------------------------------------------
namespace {

// Whether every row of a rows x cols matrix at p starts on a 16-byte boundary, so
// that its quads can be loaded as float4. cudaMalloc's memory is 256-byte aligned, but
// a caller may pass a pointer into the middle of a buffer.
bool rows_are_16_byte_aligned(const float* p, int cols) {
    return cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

dim3 grid_for(int M, int N, int BM, int BN) { return dim3(tutorial::ceil_div(N, BN), tutorial::ceil_div(M, BM)); }

}  // namespace

void register_tiled_gemm_1d(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("register_tiled_gemm_1d", A, B, C, M, N, K);
    constexpr int BM = kTile1D_BM, BN = kTile1D_BN, BK = kTile1D_BK, TM = kTile1D_TM;
    gemm_1d_kernel<BM, BN, BK, TM><<<grid_for(M, N, BM, BN), (BM / TM) * BN>>>(A, B, C, M, N, K);
    CUDA_CHECK_KERNEL("gemm_1d_kernel");
}

void register_tiled_gemm_2d(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("register_tiled_gemm_2d", A, B, C, M, N, K);
    constexpr int BM = kTile2D_BM, BN = kTile2D_BN, BK = kTile2D_BK, TM = kTile2D_TM, TN = kTile2D_TN;
    gemm_2d_kernel<BM, BN, BK, TM, TN><<<grid_for(M, N, BM, BN), (BM / TM) * (BN / TN)>>>(A, B, C, M, N, K);
    CUDA_CHECK_KERNEL("gemm_2d_kernel");
}

/// @brief Launch 7c's kernel with the given tiling; the float4 paths are chosen from
/// the matrices' alignment; any tiling may be passed, to compare tilings.
template <int BM, int BN, int BK, int TM, int TN, int PAD>
void launch_gemm_vectorized(const float* A, const float* B, float* C, int M, int N, int K) {
    const dim3 grid = grid_for(M, N, BM, BN), block((BM / TM) * (BN / TN));
    const bool vector_a = rows_are_16_byte_aligned(A, K), vector_b = rows_are_16_byte_aligned(B, N) &&
                                                                     rows_are_16_byte_aligned(C, N);
    // Each combination is its own kernel, so the fast path carries no test of alignment.
    if (vector_a && vector_b) {
        gemm_vectorized_kernel<BM, BN, BK, TM, TN, PAD, true, true><<<grid, block>>>(A, B, C, M, N, K);
    } else if (vector_a) {
        gemm_vectorized_kernel<BM, BN, BK, TM, TN, PAD, true, false><<<grid, block>>>(A, B, C, M, N, K);
    } else if (vector_b) {
        gemm_vectorized_kernel<BM, BN, BK, TM, TN, PAD, false, true><<<grid, block>>>(A, B, C, M, N, K);
    } else {
        gemm_vectorized_kernel<BM, BN, BK, TM, TN, PAD, false, false><<<grid, block>>>(A, B, C, M, N, K);
    }
    CUDA_CHECK_KERNEL("gemm_vectorized_kernel");
}

// 7d's two tilings (see register_tiled_gemm_warptiled_with): the functions below take
// one of these and deduce the kernel's template arguments from it.
using LargeWarptile = Warptile<kWarptile_BM, kWarptile_BN, 16, 64, 32, 2, 8, 4, 4, false>;
using SmallWarptile = Warptile<kWarptileSmall, kWarptileSmall, 32, 32, 32, 1, 8, 4, 4, false>;

/// @brief Launch 7d's kernel with the given tiling (see Warptile); any tiling may be
/// passed, to compare tilings.
template <int BM, int BN, int BK, int WM, int WN, int WN_ITER, int TM, int TN, int PAD, bool DOUBLE_BUFFER>
void launch_gemm_warptiled(Warptile<BM, BN, BK, WM, WN, WN_ITER, TM, TN, PAD, DOUBLE_BUFFER>, const float* A,
                           const float* B, float* C, int M, int N, int K) {
    using Shape = Warptile<BM, BN, BK, WM, WN, WN_ITER, TM, TN, PAD, DOUBLE_BUFFER>;
    const dim3 grid = grid_for(M, N, BM, BN), block(Shape::kThreads);
    const bool vector_a = rows_are_16_byte_aligned(A, K), vector_b = rows_are_16_byte_aligned(B, N) &&
                                                                     rows_are_16_byte_aligned(C, N);
    if (vector_a && vector_b) {
        gemm_warptiled_kernel<BM, BN, BK, WM, WN, WN_ITER, TM, TN, PAD, DOUBLE_BUFFER, true, true>
            <<<grid, block>>>(A, B, C, M, N, K);
    } else if (vector_a) {
        gemm_warptiled_kernel<BM, BN, BK, WM, WN, WN_ITER, TM, TN, PAD, DOUBLE_BUFFER, true, false>
            <<<grid, block>>>(A, B, C, M, N, K);
    } else if (vector_b) {
        gemm_warptiled_kernel<BM, BN, BK, WM, WN, WN_ITER, TM, TN, PAD, DOUBLE_BUFFER, false, true>
            <<<grid, block>>>(A, B, C, M, N, K);
    } else {
        gemm_warptiled_kernel<BM, BN, BK, WM, WN, WN_ITER, TM, TN, PAD, DOUBLE_BUFFER, false, false>
            <<<grid, block>>>(A, B, C, M, N, K);
    }
    CUDA_CHECK_KERNEL("gemm_warptiled_kernel");
}

/// @brief How many blocks of 7d's kernel with the given tiling fit on one SM at once, as the
/// occupancy API says: its float4 variant's, the one aligned matrices get (on an H100 the
/// four variants of a tiling fit alike: 2 blocks per SM for the large, 4 for the small).
template <int BM, int BN, int BK, int WM, int WN, int WN_ITER, int TM, int TN, int PAD, bool DOUBLE_BUFFER>
int warptiled_blocks_per_sm(Warptile<BM, BN, BK, WM, WN, WN_ITER, TM, TN, PAD, DOUBLE_BUFFER>) {
    using Shape = Warptile<BM, BN, BK, WM, WN, WN_ITER, TM, TN, PAD, DOUBLE_BUFFER>;
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, gemm_warptiled_kernel<BM, BN, BK, WM, WN, WN_ITER, TM, TN, PAD, DOUBLE_BUFFER, true, true>,
        Shape::kThreads, 0));
    return blocks;
}

void register_tiled_gemm_vectorized(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("register_tiled_gemm_vectorized", A, B, C, M, N, K);
    launch_gemm_vectorized<kTile2D_BM, kTile2D_BN, kTile2D_BK, kTile2D_TM, kTile2D_TN, 4>(A, B, C, M, N, K);
}

int warptile_blocks_per_wave(WarptileTiling tiling) {
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    switch (tiling) {
        case WarptileTiling::large: return warptiled_blocks_per_sm(LargeWarptile{}) * sms;
        case WarptileTiling::small: return warptiled_blocks_per_sm(SmallWarptile{}) * sms;
    }
    throw std::invalid_argument("warptile_blocks_per_wave: argument tiling must be WarptileTiling::large or "
                                "WarptileTiling::small, got " + std::to_string(static_cast<int>(tiling)));
}

WarptileTiling warptile_tiling_for(int M, int N) {
    // A wave is what the GPU holds at once: blocks per SM (the occupancy API's answer, from
    // the kernel's registers and shared memory) times SMs. The large tiling is chosen from
    // half a wave of its blocks on. On an H100 its 127 registers per thread allow 2 blocks
    // of 256 threads per SM, so half a wave is one block per SM, and fewer large tiles leave
    // SMs idle: 1024^3's 64 tiles leave 68 of the 132 with nothing (47% of cuBLAS, against
    // 84% with the small tiling's 256 blocks). From 2048^3 on (256 tiles, 8 short of a
    // wave) the large tiles' reuse wins (86.5% against 68.4%).
    const long long large_tiles = static_cast<long long>(tutorial::ceil_div(M, kWarptile_BM)) *
                                  tutorial::ceil_div(N, kWarptile_BN);
    return 2 * large_tiles < warptile_blocks_per_wave(WarptileTiling::large) ? WarptileTiling::small
                                                                              : WarptileTiling::large;
}

void register_tiled_gemm_warptiled_with(WarptileTiling tiling, const float* A, const float* B, float* C, int M, int N,
                                        int K) {
    tutorial::require_gemm_arguments("register_tiled_gemm_warptiled_with", A, B, C, M, N, K);
    switch (tiling) {
        case WarptileTiling::large:
            // 128 x 128 x 16 block tiles, 8 warps of 64 x 32, each thread 8 x 4 x (1 x 2
            // sub-tiles), single buffered: on an H100 the fastest at 2048^3 and above of
            // the tilings timed for the lesson.
            launch_gemm_warptiled(LargeWarptile{}, A, B, C, M, N, K);
            return;
        case WarptileTiling::small:
            // 64 x 64 x 32 block tiles, 4 warps of 32 x 32, each thread 8 x 4: four times as
            // many blocks, for problems the large tiles cannot spread over every SM (on an
            // H100 at 1024^3: 84% of cuBLAS, against 47% with the large tiles).
            launch_gemm_warptiled(SmallWarptile{}, A, B, C, M, N, K);
            return;
    }
    throw std::invalid_argument("register_tiled_gemm_warptiled_with: argument tiling must be WarptileTiling::large or "
                                "WarptileTiling::small, got " + std::to_string(static_cast<int>(tiling)));
}

void register_tiled_gemm_warptiled(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("register_tiled_gemm_warptiled", A, B, C, M, N, K);
    register_tiled_gemm_warptiled_with(warptile_tiling_for(M, N), A, B, C, M, N, K);
}
