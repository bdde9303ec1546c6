// Chapter 8: asynchronous copies into shared memory, for chapter 2's tiled GEMM, then for
// chapter 7's warp tiles.
//
// Read README.md in this folder first. Then work through the TODO(chapter8) markers
// below, top to bottom, and run `make chapter8 test` after each one.
//
// The steps are 8a, 8b, then (going further) 8c and 8d. 8a to 8c keep chapter 2's scheme: a
// TILE x TILE block computes a TILE x TILE tile of C, one element per thread, walking
// along K one tile of A and one tile of B at a time. Only the way the tiles reach shared
// memory changes.
//
// Every matrix is row-major: element (r, c) of a matrix with `cols` columns is at
// index r * cols + c.
#include "async_copy_gemm.h"

#include "cuda_check.h"
#include "device_buffer.h"
#include "gemm/gemm_reference.h"
#include "padded_rows.h"

#include <cuda.h>            // CUtensorMap and its enums (8c); no -lcuda: see make_tile_tensor_map
#include <cudaTypedefs.h>    // PFN_cuTensorMapEncodeTiled, the type of the driver's function
#include <cuda/barrier>      // cuda::barrier, the Tensor Memory Accelerator's copies (8c)
#include <cuda/pipeline>     // cuda::pipeline, cuda::memcpy_async (8b)
#include <cuda_pipeline.h>   // __pipeline_memcpy_async and the other primitives (8a)

#include <cstdint>
#include <stdexcept>
#include <string>

// A __shared__ variable's constructor never runs; init() sets up 8c's barriers instead, as
// the CUDA Programming Guide does.
#ifdef __NVCC__
#pragma nv_diag_suppress static_var_with_dynamic_init
#endif

tutorial::LaunchConfig async_gemm_launch_config(int M, int N) {
    // TODO(chapter8): as chapter 2: one kAsyncTile x kAsyncTile block per tile of C, grid.x
    //   covering the N columns and grid.y the M rows.
    (void)M;
    (void)N;
    return tutorial::LaunchConfig{dim3(1, 1), dim3(1, 1)};
}

namespace {

// Whether a rows x cols matrix at p can be copied in 16-byte pieces: every row starts on 16
// bytes. cudaMalloc's memory is 256-byte aligned, but a caller may pass a pointer into the
// middle of a buffer.
bool rows_start_on_16_bytes(const float* p, int cols) {
    return cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

// ---- 8a: two stages with the __pipeline_* primitives -------------------------------------

// This thread's copies of the phase whose tiles begin at column t of A and row t of B, VEC
// floats a copy. The phase's two tiles are 2 * TILE * TILE / VEC copies, numbered A's tile
// first, row by row, then B's; the block's thread `thread` (threadIdx.y * TILE + threadIdx.x)
// makes copies thread, thread + TILE * TILE, ... With VEC = 1 (4 bytes) every thread copies
// its own element of each tile, as chapter 2's loads did; with VEC = 4 (16 bytes: every row
// of A and B starts on 16 bytes, so a copy lies wholly inside the matrix or wholly outside
// it) half the threads make one copy each and the rest none, a quarter of the copy
// instructions. A copy inside A or B is `start_copy(destination, source)`, which starts an
// asynchronous copy of 4 * VEC bytes (8a and 8b each pass their own); a copy outside is
// written as zeros by ordinary stores. (cp.async could write the zeros itself, with a zero
// fill (zfill) as large as the copy, but it would still need a valid source address; the
// stores say what they do.)
template <int TILE, int VEC, class Tile, class StartCopy>
__device__ __forceinline__ void for_each_tile_copy(Tile& A_tile, Tile& B_tile, const float* A, const float* B, int M,
                                                   int N, int K, int t, StartCopy start_copy) {
    constexpr int kCopiesPerTile = TILE * TILE / VEC;
    constexpr int kThreads = TILE * TILE;
    const int thread = threadIdx.y * TILE + threadIdx.x;
    // TODO(chapter8): 8a, step 1. For each copy this thread makes (copies thread,
    //   thread + kThreads, ... below 2 * kCopiesPerTile: a fixed count of them, unrolled): is it
    //   one of A's or of B's? Its row r and column c in its tile (a row holds TILE / VEC copies), then its
    //   row and column in the matrix (where does this block's tile of A, or of B, start in
    //   phase t?). Inside the matrix, start_copy(its place in the tile, its place in the
    //   matrix); outside, store VEC zeros.
    (void)A_tile, (void)B_tile, (void)A, (void)B, (void)M, (void)N, (void)K, (void)t, (void)thread;
    (void)kCopiesPerTile, (void)kThreads, (void)start_copy;
}

// Start this thread's copies of the phase that begins at t with __pipeline_memcpy_async. They
// are not yet committed: the caller commits them.
template <int TILE, int VEC, class Tile>
__device__ void start_tile_copies(Tile& A_tile, Tile& B_tile, const float* A, const float* B, int M, int N, int K,
                                  int t) {
    for_each_tile_copy<TILE, VEC>(A_tile, B_tile, A, B, M, N, K, t, [](float* destination, const float* source) {
        // 4 * VEC bytes from global to shared memory, without passing through a register:
        // one cp.async instruction, and the thread goes on at once.
        __pipeline_memcpy_async(destination, source, 4 * VEC);
    });
}

// The TILE products of one phase, read from a pair of tiles in shared memory. The tiles'
// type is a template parameter (float[TILE][TILE] here), so that the CPU backend keeps
// checking every access to them.
template <int TILE, class Tile>
__device__ float multiply_tiles(const Tile& A_tile, const Tile& B_tile, float sum) {
#pragma unroll
    for (int k = 0; k < TILE; ++k) {
        sum += A_tile[threadIdx.y][k] * B_tile[k][threadIdx.x];
    }
    return sum;
}

template <int TILE, int VEC>
__global__ void double_buffered_gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // Two copies of each tile: while the block multiplies the pair in stage `phase % 2`,
    // the copies of the next phase are filling the other stage. 16-byte copies need
    // 16-byte-aligned destinations.
    __shared__ __align__(16) float A_tiles[2][TILE][TILE];
    __shared__ __align__(16) float B_tiles[2][TILE][TILE];
    const int col = blockIdx.x * TILE + threadIdx.x;
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int phases = (K + TILE - 1) / TILE;
    float sum = 0.0f;

    // TODO(chapter8): 8a, step 2. Before the loop, start the copies of phase 0 into stage 0
    //   and commit them as one batch. Then, in each phase:
    //   1. start the next phase's copies into the other stage, if there is a next phase,
    //      and commit in every phase, even with nothing started (why does the count of
    //      batches need to be the same in every phase?);
    //   2. wait for this thread's copies of this phase (__pipeline_wait_prior: how many
    //      newer batches may stay in flight?);
    //   3. make sure every thread's copies have landed, not only this thread's;
    //   4. add the products of this phase's stage (multiply_tiles);
    //   5. make sure nobody still reads this stage before the next phase refills it.
    (void)A_tiles, (void)B_tiles, (void)phases;

    if (row < M && col < N) {
        C[static_cast<size_t>(row) * N + col] = sum;
    }
}

void async_double_buffered_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("async_double_buffered_gemm", A, B, C, M, N, K);
    const tutorial::LaunchConfig launch = async_gemm_launch_config(M, N);
    // 16-byte copies when every row of A and B starts on 16 bytes, else 4-byte ones: each its
    // own kernel, so the copies carry no test of alignment.
    if (rows_start_on_16_bytes(A, K) && rows_start_on_16_bytes(B, N)) {
        double_buffered_gemm_kernel<kAsyncTile, 4><<<launch.grid, launch.block>>>(A, B, C, M, N, K);
    } else {
        double_buffered_gemm_kernel<kAsyncTile, 1><<<launch.grid, launch.block>>>(A, B, C, M, N, K);
    }
    CUDA_CHECK_KERNEL("double_buffered_gemm_kernel");
}

// ---- 8b: STAGES stages with cuda::pipeline ------------------------------------------------
// libcu++'s cuda::pipeline: producer_commit() closes a stage's batch of copies and
// pipeline_consumer_wait_prior<n> waits until at most n newer batches are in flight. Made by
// cuda::make_pipeline() with no arguments, it is this thread's own, like the __pipeline_*
// primitives (the same cp.async instructions): its wait covers this thread's copies only,
// so the block still needs a barrier. With STAGES >= 2 stages one barrier a phase does both
// of 8a's jobs: after it, every thread's copies of this phase have landed and every thread
// has finished reading the stage of the previous phase, which can then be refilled.

// Start this thread's copies of the phase that begins at t into one stage, through the
// pipeline: 8a's copies (for_each_tile_copy), each a cuda::memcpy_async.
template <int TILE, int VEC, class Tile>
__device__ void copy_tiles_into(cuda::pipeline<cuda::thread_scope_thread>& pipeline, Tile& A_tile, Tile& B_tile,
                                const float* A, const float* B, int M, int N, int K, int t) {
    // TODO(chapter8): 8b, step 1. for_each_tile_copy, with a start_copy that copies 4 * VEC
    //   bytes by cuda::memcpy_async into the pipeline, the size given as a
    //   cuda::aligned_size_t<4 * VEC> (a plain size_t promises no alignment: what would the
    //   library then have to do?).
    (void)pipeline, (void)A_tile, (void)B_tile, (void)A, (void)B, (void)M, (void)N, (void)K, (void)t;
}

template <int TILE, int STAGES, int VEC>
__global__ void pipeline_gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ __align__(16) float A_tiles[STAGES][TILE][TILE];
    __shared__ __align__(16) float B_tiles[STAGES][TILE][TILE];
    const int col = blockIdx.x * TILE + threadIdx.x;
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int phases = (K + TILE - 1) / TILE;
    float sum = 0.0f;

    // TODO(chapter8): 8b, step 2. Make this thread's pipeline (cuda::make_pipeline()). Before the
    //   loop, fill stages 0 .. STAGES - 2 with phases 0 .. STAGES - 2, one batch each
    //   (producer_acquire, copy_tiles_into when the phase exists, producer_commit: an empty
    //   batch keeps the count). Then in each phase p:
    //   1. wait for this thread's copies of phase p (pipeline_consumer_wait_prior: how many
    //      newer batches may stay in flight?), then make sure every thread's have landed, a
    //      barrier that also says everybody has finished reading the stage phase p - 1 used;
    //   2. fill that stage with phase p + STAGES - 1 when it exists, and commit always;
    //   3. add the products of phase p's stage (multiply_tiles), and consumer_release().
    (void)A_tiles, (void)B_tiles, (void)phases;

    if (row < M && col < N) {
        C[static_cast<size_t>(row) * N + col] = sum;
    }
}

void async_pipeline_gemm(const float* A, const float* B, float* C, int M, int N, int K, int stages) {
    tutorial::require_gemm_arguments("async_pipeline_gemm", A, B, C, M, N, K);
    // The stage count sizes the __shared__ arrays, so each has its own kernel instance.
    const bool launched = tutorial::launch_instance_for<2, 3, 4>(stages, [&](auto STAGES) {
        const tutorial::LaunchConfig launch = async_gemm_launch_config(M, N);
        constexpr int kStages = decltype(STAGES)::value;
        static_assert(kStages <= kMaxPipelineStages, "a stage count past kMaxPipelineStages");
        // As 8a: 16-byte copies when every row of A and B starts on 16 bytes.
        if (rows_start_on_16_bytes(A, K) && rows_start_on_16_bytes(B, N)) {
            pipeline_gemm_kernel<kAsyncTile, kStages, 4><<<launch.grid, launch.block>>>(A, B, C, M, N, K);
        } else {
            pipeline_gemm_kernel<kAsyncTile, kStages, 1><<<launch.grid, launch.block>>>(A, B, C, M, N, K);
        }
        CUDA_CHECK_KERNEL("pipeline_gemm_kernel");
    });
    if (!launched) {
        throw std::invalid_argument("async_pipeline_gemm: argument stages must be 2 to " +
                                    std::to_string(kMaxPipelineStages) + ", got " + std::to_string(stages));
    }
}

// ---- 8c (going further): tiles copied by the Tensor Memory Accelerator -------------------

using BlockBarrier = cuda::barrier<cuda::thread_scope_block>;

// Called by the issuer alone: ask the Tensor Memory Accelerator for the tiles of the phase
// whose tiles begin at t, and arrive on `filled` telling it how many bytes they will bring.
// `filled` expects that one arrival: its phase completes when the issuer has arrived and all
// those bytes have landed, and the other threads only wait for it (filled.wait_parity). A
// barrier that every thread of the block arrived on would cost 1024 arrivals a phase, each
// an atomic operation on one word of shared memory (measured on an H200: 8c took 12% longer at
// 4096^3).
template <int TILE, class Tile>
__device__ void request_tiles(Tile& A_tile, Tile& B_tile, const CUtensorMap& A_map, const CUtensorMap& B_map,
                              BlockBarrier& filled, int t) {
    // TODO(chapter8): 8c, step 2. Ask the Tensor Memory Accelerator for this phase's tile of A
    //   and tile of B (cp_async_bulk_tensor_2d_global_to_shared, in
    //   cuda::device::experimental; its coordinates are column first, then row: where do
    //   this block's tiles of phase t start?), then arrive on `filled` telling it how many
    //   bytes to expect, those of both whole tiles (cuda::device::barrier_arrive_tx; its
    //   token is not needed, since nobody waits with it).
    (void)A_tile, (void)B_tile, (void)A_map, (void)B_map, (void)filled, (void)t;
}

template <int TILE, int STAGES>
__global__ void tma_gemm_kernel(const __grid_constant__ CUtensorMap A_map, const __grid_constant__ CUtensorMap B_map,
                                float* C, int M, int N, int K) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    // The host function refuses GPUs older than 9.0, so this never runs.
    __trap();
#else
    // The Tensor Memory Accelerator writes shared memory in 16-byte units from a
    // 128-byte-aligned destination.
    __shared__ __align__(128) float A_tiles[STAGES][TILE][TILE];
    __shared__ __align__(128) float B_tiles[STAGES][TILE][TILE];
    __shared__ BlockBarrier filled[STAGES];
    const int col = blockIdx.x * TILE + threadIdx.x;
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int phases = (K + TILE - 1) / TILE;
    const bool issuer = threadIdx.x == 0 && threadIdx.y == 0;
    float sum = 0.0f;

    // TODO(chapter8): 8c, step 3. The issuer initialises each barrier of `filled` for one
    //   arrival (its own), then fences them for the async proxy (fence_proxy_async_shared_cta,
    //   in cuda::device::experimental) so that the copy engine sees the initialised
    //   barriers; then the whole block waits for that. The issuer requests the tiles of the
    //   first min(STAGES, phases) phases. Then for each phase p, in stage s = p % STAGES:
    //   wait for the barrier's phase that this fill completes (filled[s].wait_parity: the
    //   fills of stage s are its phases 0, 1, 2, ..., so which parity?), add the products,
    //   __syncthreads() (the stage is free again), and the issuer requests phase p + STAGES
    //   into stage s when there is one.
    (void)A_tiles, (void)B_tiles, (void)filled, (void)phases, (void)issuer;

    if (row < M && col < N) {
        C[static_cast<size_t>(row) * N + col] = sum;
    }
#endif
}

// A tensor map of a rows x cols row-major float matrix in GPU memory, read in boxes of
// tile x tile elements. The driver's cuTensorMapEncodeTiled makes it; the runtime hands out
// the driver's function, so the program needs no link to the driver library (-lcuda).
CUtensorMap make_tile_tensor_map(const float* matrix, int rows, int cols, int tile) {
    // TODO(chapter8): 8c, step 1. Get the driver's cuTensorMapEncodeTiled through the
    //   runtime (cudaGetDriverEntryPointByVersion, version 12000, as a
    //   PFN_cuTensorMapEncodeTiled_v12000). Call it to describe a rank-2 float32 tensor: its
    //   sizes innermost first, the stride between rows in bytes (dimension 0 has none), a
    //   tile x tile box, element strides of 1, no interleave, no swizzle, and out-of-bounds
    //   elements filled with zeros (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE). Throw
    //   std::runtime_error when either call fails.
    (void)matrix, (void)rows, (void)cols, (void)tile;
    return CUtensorMap{};
}

namespace {

// The tensor map's rules, checked before the driver sees the arguments, so that the
// message names the argument and the rule.
void require_tensor_map_rows(const char* name, int value, const char* matrix) {
    if (value % 4 != 0) {
        throw std::invalid_argument(std::string("tma_gemm: argument ") + name + " must be a multiple of 4, got " +
                                    std::to_string(value) + ": a tensor map needs every row of " + matrix +
                                    " to start on 16 bytes (" + name +
                                    " floats of 4 bytes); async_pipeline_gemm takes any size");
    }
}

void require_16_byte_start(const char* name, const float* matrix) {
    const auto address = reinterpret_cast<std::uintptr_t>(matrix);
    if (address % 16 != 0) {
        throw std::invalid_argument(std::string("tma_gemm: argument ") + name +
                                    " must start on 16 bytes for a tensor map, got an address " +
                                    std::to_string(address % 16) + " bytes past a 16-byte boundary");
    }
}

void require_tensor_memory_accelerator() {
    int device = 0, major = 0, minor = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    if (major < 9) {
        throw std::runtime_error("tma_gemm: the Tensor Memory Accelerator needs compute capability 9.0 or newer; "
                                 "this GPU is " + std::to_string(major) + "." + std::to_string(minor));
    }
}

}  // namespace

void tma_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("tma_gemm", A, B, C, M, N, K);
    require_tensor_map_rows("K", K, "A");
    require_tensor_map_rows("N", N, "B");
    require_16_byte_start("A", A);
    require_16_byte_start("B", B);
    require_tensor_memory_accelerator();
    const CUtensorMap A_map = make_tile_tensor_map(A, M, K, kAsyncTile);
    const CUtensorMap B_map = make_tile_tensor_map(B, K, N, kAsyncTile);
    const tutorial::LaunchConfig launch = async_gemm_launch_config(M, N);
    tma_gemm_kernel<kAsyncTile, kTmaStages><<<launch.grid, launch.block>>>(A_map, B_map, C, M, N, K);
    CUDA_CHECK_KERNEL("tma_gemm_kernel");
}

// ---- 8d (going further): chapter 7's warp tiles, fed by a cp.async pipeline --------------
// Chapter 7's 7d keeps a warp tile of C in registers and reads shared memory in float4s;
// its tiles still travel global -> registers -> shared. Here they are copied by cp.async,
// WarptilePipeline::kStages tiles along K in flight, with one __syncthreads() per tile.
//
// A copy cannot transpose, so A's tile stays as A is: A_tiles[stage][m][k], each row padded
// by 4 floats. A thread reads four consecutive k of one row as a float4 and uses them over
// four steps of k. Its TM rows are kRowStep apart, not adjacent, so that the four rows a
// warp reads at once fall in different banks (rows 1 apart of 20 floats: banks 0, 20, 8, 28).
// B's tile is B as it is: B_tiles[stage][k][n].
//
// Every copy is 16 bytes, 4 floats: the kernel reads A and B only where every row starts
// on 16 bytes (K and N multiples of 4, the matrices on 16 bytes). Where the caller's do
// not, the host first copies them into scratch matrices whose rows are padded with zeros
// to a multiple of 4 floats (tutorial::rows_on_16_bytes), and the kernel multiplies those:
// the zeros add nothing to any sum. A copy of 4 floats then lies wholly inside a padded row or
// wholly outside the matrix, and one outside is written as zeros by the copy itself (its
// zfill, the bytes to fill with zeros, equal to the copy's size: nothing is read).
struct WarptilePipeline {
    static constexpr int BM = kWarpPipeBM, BN = kWarpPipeBN, BK = kWarpPipeBK, kStages = kWarpPipeStages;
    static constexpr int WM = 32, WN = 64, WN_ITER = 2, TM = 8, TN = 4;      // as 7d's 64 x 128 tiling
    static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;             // 4 warps
    static constexpr int kWmIter = WM * WN / (32 * TM * TN * WN_ITER);      // sub-tiles along M
    static constexpr int kSubM = WM / kWmIter, kSubN = WN / WN_ITER;        // a sub-tile's rows, columns
    static constexpr int kRowStep = kSubM / TM;                             // rows between a thread's rows
    static constexpr int kARow = BK + 4;                                    // floats per row of A_tiles
    static_assert(kThreads == kWarpPipeThreads, "the header's thread count is the tiling's");
    static_assert((kSubM / TM) * (kSubN / TN) == 32, "a sub-tile must hold 32 threads' blocks");
    static constexpr std::size_t kSharedBytes = sizeof(float) * kStages * (BM * kARow + BK * BN);
    static_assert(kSharedBytes <= 48 * 1024, "above 48 KB of dynamic shared memory a kernel must opt in");
};

// Start this thread's copies of the ROWS x COLS tile whose top-left element is (row0, col0)
// of a rows x cols row-major matrix into tile[r][c], VEC = 4 floats (16 bytes) a copy; cols
// is a multiple of 4 and the matrix starts on 16 bytes. A's tile is
// copy_tile_async<BM, BK>(A_tile, A, M, K, block_row, k0), B's
// copy_tile_async<BK, BN>(B_tile, B, K, N, k0, block_col). Not committed: the caller
// commits.
template <int ROWS, int COLS, class Global, class Tile>
__device__ __forceinline__ void copy_tile_async(Tile& tile, Global matrix, int rows, int cols, int row0, int col0) {
    constexpr int kThreads = kWarpPipeThreads;
    constexpr int VEC = 4;
    constexpr int kBytes = VEC * sizeof(float);
    static_assert(ROWS * COLS % (VEC * kThreads) == 0, "every thread must start the same number of copies");
    // TODO(chapter8): 8d, step 1. The tile is ROWS * COLS / VEC copies of VEC floats, shared
    //   out among the kThreads threads so that neighbouring threads copy neighbouring pieces
    //   of a row (the global reads coalesce). A copy inside the matrix copies kBytes from its
    //   element; a copy outside it writes kBytes of zeros by itself: its zero fill (zfill, the
    //   fourth argument of __pipeline_memcpy_async) covers the whole copy, and its source
    //   must still be a valid address, though nothing is read from it.
    (void)tile, (void)matrix, (void)rows, (void)cols, (void)row0, (void)col0, (void)kBytes;
}

// Start this thread's copies of the tiles that begin at column k0 of A and row k0 of B
// into one stage.
template <class GlobalA, class GlobalB, class TileA, class TileB>
__device__ __forceinline__ void start_warptile_copies(TileA& A_tile, TileB& B_tile, GlobalA A, GlobalB B, int M,
                                                      int N, int K, int block_row, int block_col, int k0) {
    using Shape = WarptilePipeline;
    copy_tile_async<Shape::BM, Shape::BK>(A_tile, A, M, K, block_row, k0);
    copy_tile_async<Shape::BK, Shape::BN>(B_tile, B, K, N, k0, block_col);
}

// Add one stage's BK products to the thread's sums: for each four k, the thread's rows of
// A as float4s, then for each of those k its columns of B and the outer product.
template <class TileA, class TileB, int ROWS, int COLS>
__device__ __forceinline__ void multiply_warptile_stage(const TileA& A_tile, const TileB& B_tile,
                                                        float (&sum)[ROWS][COLS], int first_row, int first_col) {
    using Shape = WarptilePipeline;
    constexpr int kWmIter = Shape::kWmIter, TM = Shape::TM, TN = Shape::TN, WN_ITER = Shape::WN_ITER;
#pragma unroll
    for (int kk = 0; kk < Shape::BK; kk += 4) {
        float4 a4[kWmIter * TM];
#pragma unroll
        for (int wm = 0; wm < kWmIter; ++wm) {
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                a4[wm * TM + i] = *reinterpret_cast<const float4*>(
                    &A_tile[first_row + wm * Shape::kSubM + i * Shape::kRowStep][kk]);
            }
        }
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            float b[WN_ITER * TN];
#pragma unroll
            for (int wn = 0; wn < WN_ITER; ++wn) {
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    const float4 v = *reinterpret_cast<const float4*>(&B_tile[kk + k][first_col + wn * Shape::kSubN + j]);
                    b[wn * TN + j] = v.x, b[wn * TN + j + 1] = v.y, b[wn * TN + j + 2] = v.z, b[wn * TN + j + 3] = v.w;
                }
            }
#pragma unroll
            for (int i = 0; i < kWmIter * TM; ++i) {
                const float a = k == 0 ? a4[i].x : k == 1 ? a4[i].y : k == 2 ? a4[i].z : a4[i].w;
#pragma unroll
                for (int j = 0; j < WN_ITER * TN; ++j) sum[i][j] += a * b[j];
            }
        }
    }
}

// C = A·B for an M x K matrix A and a K x N matrix B whose rows start on 16 bytes (K and N
// multiples of 4), into the M x C_cols matrix C, C_cols ≤ N: where B is a padded copy, its
// columns past C_cols are zeros and so are the products' there, which are not stored.
__global__ void __launch_bounds__(kWarpPipeThreads)
    warptile_pipeline_gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K, int C_cols) {
    using Shape = WarptilePipeline;
    constexpr int BM = Shape::BM, BN = Shape::BN, BK = Shape::BK, STAGES = Shape::kStages;
    constexpr int TM = Shape::TM, TN = Shape::TN, kWmIter = Shape::kWmIter, WN_ITER = Shape::WN_ITER;
    // The stages, in the dynamic shared memory that the launch gives (kSharedBytes): A's
    // STAGES tiles, then B's, seen as arrays of their shapes. Declared as __shared__ arrays of
    // the same shapes, the same code ran 3% slower at 4096³ and 13% slower at 4095³ on the
    // H200 (nvcc computes the copies' and loads' addresses less well).
    extern __shared__ __align__(16) float warptile_stages[];
    auto& A_tiles = *reinterpret_cast<float (*)[STAGES][BM][Shape::kARow]>(warptile_stages);
    auto& B_tiles = *reinterpret_cast<float (*)[STAGES][BK][BN]>(warptile_stages + STAGES * BM * Shape::kARow);
    const int block_row = blockIdx.y * BM, block_col = blockIdx.x * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    // The thread's first row and column in the block's tile: its warp's tile, then its
    // place in a sub-tile (rows kRowStep apart, columns TN together).
    const int first_row = warp / (BN / Shape::WN) * Shape::WM + lane / (Shape::kSubN / TN);
    const int first_col = warp % (BN / Shape::WN) * Shape::WN + lane % (Shape::kSubN / TN) * TN;
    const int tiles = (K + BK - 1) / BK;
    float sum[kWmIter * TM][WN_ITER * TN] = {};

    // TODO(chapter8): 8d, step 2. The pipeline, with the __pipeline_* primitives, STAGES deep:
    //   1. before the loop, commit STAGES - 1 batches, tile s into stage s (an empty batch
    //      where there is no such tile keeps the count);
    //   2. for each tile t: wait until this thread's copies of tile t have landed (how many
    //      newer batches may stay in flight?), then one barrier (everybody's copies have
    //      landed, and everybody is done with the stage tile t - 1 used); start the tile
    //      STAGES - 1 ahead into that freed stage when it exists, and commit always;
    //      multiply tile t's stage (multiply_warptile_stage).
    (void)A_tiles, (void)B_tiles, (void)block_row, (void)block_col, (void)first_row, (void)first_col, (void)tiles;

    // Each thread's sums: row i of sub-tile wm is row first_row + wm * kSubM + i * kRowStep,
    // stored one float at a time, whatever C's alignment. (Stored 4 at a time where C's rows
    // start on 16 bytes, the same kernel took 3% longer at 4096³ on the H200; see the lesson.)
#pragma unroll
    for (int wm = 0; wm < kWmIter; ++wm) {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = block_row + first_row + wm * Shape::kSubM + i * Shape::kRowStep;
#pragma unroll
            for (int wn = 0; wn < WN_ITER; ++wn) {
                const int col = block_col + first_col + wn * Shape::kSubN;
                const float* s = sum[wm * TM + i] + wn * TN;
                if (row >= M) continue;
#pragma unroll
                for (int j = 0; j < TN; ++j) {
                    if (col + j < C_cols) C[static_cast<size_t>(row) * C_cols + col + j] = s[j];
                }
            }
        }
    }
}

void async_warptile_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("async_warptile_gemm", A, B, C, M, N, K);
    // K and N rounded up to 4 floats: the sizes of the matrices the kernel multiplies.
    const int K4 = (K + 3) / 4 * 4, N4 = (N + 3) / 4 * 4;
    tutorial::ScratchBuffer<float> A_scratch, B_scratch;
    const float* A_read = tutorial::rows_on_16_bytes(A, M, K, M, K4, A_scratch);
    const float* B_read = tutorial::rows_on_16_bytes(B, K, N, K4, N4, B_scratch);
    const dim3 grid(tutorial::ceil_div(N4, kWarpPipeBN), tutorial::ceil_div(M, kWarpPipeBM));
    warptile_pipeline_gemm_kernel<<<grid, kWarpPipeThreads, WarptilePipeline::kSharedBytes>>>(A_read, B_read, C, M,
                                                                                                N4, K4, N);
    CUDA_CHECK_KERNEL("warptile_pipeline_gemm_kernel");
}
