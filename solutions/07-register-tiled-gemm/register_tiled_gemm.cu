// Chapter 7, reference solution: register-tiled GEMM, from 1D register tiling to warp
// tiles, correct for any M, N, K.
//
// Every matrix is row-major: element (r, c) of a matrix with `cols` columns is at
// index r * cols + c. Each step keeps chapter 2's scheme (a block walks along K, staging
// a tile of A and a tile of B in shared memory per phase) and changes one thing:
//   7a  a thread computes TM outputs of one column: each B value read from shared
//       memory serves TM multiply-adds;
//   7b  a thread computes a TM x TN block: an outer product of TM values of A and TN
//       values of B, both held in registers, per step along K;
//   7c  global loads move 16 bytes (float4) at a time, and the tile of A is stored
//       transposed so that a thread's TM values of A are consecutive in shared memory;
//   7d  each warp owns a warp tile of C, and the next phase's tiles are fetched from
//       global memory into registers while the current phase is being multiplied.
#include "register_tiled_gemm.h"

#include "cuda_check.h"
#include "launch_config.h"
#include "gemm/gemm_reference.h"

#include <cstddef>
#include <cstdint>

// ---- 7a: 1D register tiling -----------------------------------------------------------
// (BM / TM) x BN threads; thread t owns column t % BN of the block's tile and the TM
// rows starting at (t / BN) * TM. Per phase it reads one B value and TM A values from
// shared memory for TM multiply-adds, where chapter 2 read two values per multiply-add.
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__((BM / TM) * BN)
    gemm_1d_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    constexpr int kThreads = (BM / TM) * BN;
    __shared__ float A_tile[BM][BK];
    __shared__ float B_tile[BK][BN];

    const int tid = threadIdx.x;
    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;
    const int thread_col = tid % BN;
    const int thread_row = tid / BN * TM;  // the first of this thread's TM rows in the tile

    float sum[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        // Consecutive threads load consecutive elements of a row (coalesced); elements
        // outside A or B are stored as 0 so that partial tiles need no special case below.
        for (int i = tid; i < BM * BK; i += kThreads) {
            const int r = i / BK, c = i % BK;
            const int row = block_row + r, col = k0 + c;
            A_tile[r][c] = (row < M && col < K) ? A[row * K + col] : 0.0f;
        }
        for (int i = tid; i < BK * BN; i += kThreads) {
            const int r = i / BN, c = i % BN;
            const int row = k0 + r, col = block_col + c;
            B_tile[r][c] = (row < K && col < N) ? B[row * N + col] : 0.0f;
        }
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

    const int col = block_col + thread_col;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = block_row + thread_row + i;
        if (row < M && col < N) {
            C[row * N + col] = sum[i];
        }
    }
}

// ---- 7b: 2D register tiling -----------------------------------------------------------
// (BM / TM) x (BN / TN) threads, each computing a TM x TN block of the tile. Per step
// along K it reads TM + TN values from shared memory for TM * TN multiply-adds.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    gemm_2d_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
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
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = tid; i < BM * BK; i += kThreads) {
            const int r = i / BK, c = i % BK;
            const int row = block_row + r, col = k0 + c;
            A_tile[r][c] = (row < M && col < K) ? A[row * K + col] : 0.0f;
        }
        for (int i = tid; i < BK * BN; i += kThreads) {
            const int r = i / BN, c = i % BN;
            const int row = k0 + r, col = block_col + c;
            B_tile[r][c] = (row < K && col < N) ? B[row * N + col] : 0.0f;
        }
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

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = block_row + thread_row + i;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int col = block_col + thread_col + j;
            if (row < M && col < N) C[row * N + col] = sum[i][j];
        }
    }
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

// Fetch the BM x BK tile of A whose top-left element is (block_row, k0).
template <int BM, int BK, int THREADS, bool VECTOR_A, class GlobalA>
__device__ __forceinline__ void fetch_tile_a(GlobalA A, float4 (&quads)[BM * BK / 4 / THREADS], int M, int K,
                                             int block_row, int k0) {
    const bool inside = block_row + BM <= M && k0 + BK <= K;
#pragma unroll
    for (int q = 0; q < BM * BK / 4 / THREADS; ++q) {
        const int i = threadIdx.x + q * THREADS;
        const int row = block_row + i / (BK / 4);
        const int col = k0 + i % (BK / 4) * 4;
        if (VECTOR_A && inside) {
            quads[q] = *reinterpret_cast<const float4*>(&A[row * K + col]);
        } else if (inside) {
            quads[q] = make_float4(A[row * K + col], A[row * K + col + 1], A[row * K + col + 2], A[row * K + col + 3]);
        } else {
            const bool in_row = row < M;
            quads[q] = make_float4(in_row && col < K ? A[row * K + col] : 0.0f,
                                   in_row && col + 1 < K ? A[row * K + col + 1] : 0.0f,
                                   in_row && col + 2 < K ? A[row * K + col + 2] : 0.0f,
                                   in_row && col + 3 < K ? A[row * K + col + 3] : 0.0f);
        }
    }
}

// Fetch the BK x BN tile of B whose top-left element is (k0, block_col).
template <int BN, int BK, int THREADS, bool VECTOR_B, class GlobalB>
__device__ __forceinline__ void fetch_tile_b(GlobalB B, float4 (&quads)[BK * BN / 4 / THREADS], int N, int K,
                                             int block_col, int k0) {
    const bool inside = k0 + BK <= K && block_col + BN <= N;
#pragma unroll
    for (int q = 0; q < BK * BN / 4 / THREADS; ++q) {
        const int i = threadIdx.x + q * THREADS;
        const int row = k0 + i / (BN / 4);
        const int col = block_col + i % (BN / 4) * 4;
        if (VECTOR_B && inside) {
            quads[q] = *reinterpret_cast<const float4*>(&B[row * N + col]);
        } else if (inside) {
            quads[q] = make_float4(B[row * N + col], B[row * N + col + 1], B[row * N + col + 2], B[row * N + col + 3]);
        } else {
            const bool in_row = row < K;
            quads[q] = make_float4(in_row && col < N ? B[row * N + col] : 0.0f,
                                   in_row && col + 1 < N ? B[row * N + col + 1] : 0.0f,
                                   in_row && col + 2 < N ? B[row * N + col + 2] : 0.0f,
                                   in_row && col + 3 < N ? B[row * N + col + 3] : 0.0f);
        }
    }
}

// Store the quads of A transposed, A_t[k][m] = A(m, k): a thread's TM values of A for
// one k are then consecutive, two float4 reads instead of TM scalar ones. The row
// length BM + PAD spreads the four elements of a quad over different banks (see the
// lesson); it stays a multiple of 4 so that float4 reads of a row stay aligned.
template <int BM, int BK, int THREADS, class TileA>
__device__ __forceinline__ void store_tile_a(TileA& A_t, const float4 (&quads)[BM * BK / 4 / THREADS]) {
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
        fetch_tile_a<BM, BK, kThreads, VECTOR_A>(A, a_quads, M, K, block_row, k0);
        fetch_tile_b<BN, BK, kThreads, VECTOR_B>(B, b_quads, N, K, block_col, k0);
        store_tile_a<BM, BK, kThreads>(A_t, a_quads);
        store_tile_b<BN, BK, kThreads>(B_tile, b_quads);
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; i += 4) {
                const float4 v = *reinterpret_cast<const float4*>(&A_t[k][thread_row + i]);
                a[i] = v.x, a[i + 1] = v.y, a[i + 2] = v.z, a[i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                const float4 v = *reinterpret_cast<const float4*>(&B_tile[k][thread_col + j]);
                b[j] = v.x, b[j + 1] = v.y, b[j + 2] = v.z, b[j + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) sum[i][j] += a[i] * b[j];
            }
        }
        __syncthreads();
    }
    store_block_c<TM, TN, VECTOR_B>(C, sum, M, N, block_row + thread_row, block_col + thread_col);
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

    fetch_tile_a<BM, BK, kThreads, VECTOR_A>(A, a_quads, M, K, block_row, 0);
    fetch_tile_b<BN, BK, kThreads, VECTOR_B>(B, b_quads, N, K, block_col, 0);
    store_tile_a<BM, BK, kThreads>(A_t[0], a_quads);
    store_tile_b<BN, BK, kThreads>(B_tile[0], b_quads);
    __syncthreads();

    int stage = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool has_next = k0 + BK < K;
        if (DOUBLE_BUFFER && has_next) {
            // Issued now, used after the multiply-adds below: their latency hides behind them.
            fetch_tile_a<BM, BK, kThreads, VECTOR_A>(A, a_quads, M, K, block_row, k0 + BK);
            fetch_tile_b<BN, BK, kThreads, VECTOR_B>(B, b_quads, N, K, block_col, k0 + BK);
        }

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int wm = 0; wm < kWmIter; ++wm) {
#pragma unroll
                for (int i = 0; i < TM; i += 4) {
                    const float4 v =
                        *reinterpret_cast<const float4*>(&A_t[stage][k][warp_row + wm * kSubM + thread_row + i]);
                    a[wm * TM + i] = v.x, a[wm * TM + i + 1] = v.y, a[wm * TM + i + 2] = v.z, a[wm * TM + i + 3] = v.w;
                }
            }
#pragma unroll
            for (int wn = 0; wn < WN_ITER; ++wn) {
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    const float4 v =
                        *reinterpret_cast<const float4*>(&B_tile[stage][k][warp_col + wn * kSubN + thread_col + j]);
                    b[wn * TN + j] = v.x, b[wn * TN + j + 1] = v.y, b[wn * TN + j + 2] = v.z, b[wn * TN + j + 3] = v.w;
                }
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
                fetch_tile_a<BM, BK, kThreads, VECTOR_A>(A, a_quads, M, K, block_row, k0 + BK);
                fetch_tile_b<BN, BK, kThreads, VECTOR_B>(B, b_quads, N, K, block_col, k0 + BK);
                store_tile_a<BM, BK, kThreads>(A_t[0], a_quads);
                store_tile_b<BN, BK, kThreads>(B_tile[0], b_quads);
            }
            __syncthreads();
        }
    }

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
/// the matrices' alignment. Also used by gpu/tune-ch7.cu to compare tilings.
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

/// @brief Launch 7d's kernel with the given tiling (see Warptile); also used by
/// gpu/tune-ch7.cu.
template <int BM, int BN, int BK, int WM, int WN, int WN_ITER, int TM, int TN, int PAD, bool DOUBLE_BUFFER>
void launch_gemm_warptiled(const float* A, const float* B, float* C, int M, int N, int K) {
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

void register_tiled_gemm_vectorized(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("register_tiled_gemm_vectorized", A, B, C, M, N, K);
    launch_gemm_vectorized<kTile2D_BM, kTile2D_BN, kTile2D_BK, kTile2D_TM, kTile2D_TN, 4>(A, B, C, M, N, K);
}

void register_tiled_gemm_warptiled(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("register_tiled_gemm_warptiled", A, B, C, M, N, K);
    // 128 x 128 x 16 block tiles, 4 warps of 64 x 64, each thread 8 x 4 x (1 x 4 sub-tiles).
    launch_gemm_warptiled<kWarptile_BM, kWarptile_BN, 16, 64, 64, 4, 8, 4, 4, true>(A, B, C, M, N, K);
}
