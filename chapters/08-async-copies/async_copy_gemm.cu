// Chapter 8: asynchronous copies into shared memory, for chapter 2's tiled GEMM.
//
// Read README.md in this folder first. Then work through the TODO(chapter8) markers
// below, top to bottom, and run `make chapter8 test` after each one.
//
// The steps are 8a, 8b, then (going further) 8c. Every step keeps chapter 2's scheme: a
// TILE x TILE block computes a TILE x TILE tile of C, one element per thread, walking
// along K one tile of A and one tile of B at a time. Only the way the tiles reach shared
// memory changes.
//
// Every matrix is row-major: element (r, c) of a matrix with `cols` columns is at
// index r * cols + c.
#include "async_copy_gemm.h"

#include "cuda_check.h"
#include "gemm/gemm_reference.h"

#include <cooperative_groups.h>
#include <cuda.h>            // CUtensorMap and its enums (8c); no -lcuda: see make_tile_tensor_map
#include <cudaTypedefs.h>    // PFN_cuTensorMapEncodeTiled, the type of the driver's function
#include <cuda/barrier>      // cuda::barrier, the Tensor Memory Accelerator's copies (8c)
#include <cuda/pipeline>     // cuda::pipeline, cuda::memcpy_async (8b)
#include <cuda_pipeline.h>   // __pipeline_memcpy_async and the other primitives (8a)

#include <cstdint>
#include <stdexcept>
#include <string>

// A __shared__ variable's constructor never runs; cuda::make_pipeline and init() set up the
// pipeline's state and the barriers instead, as the CUDA Programming Guide does.
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

// ---- 8a: two stages with the __pipeline_* primitives -------------------------------------

// Start this thread's copies of the phase whose tiles begin at column t of A and row t of B:
// A(row, t + threadIdx.x) into A_tile and B(t + threadIdx.y, col) into B_tile. An element
// outside A or B is written as 0.0f by an ordinary store. (cp.async could write the zero
// itself, with a source size of 0, but it would still need a valid source address; the
// store says what it does.) The copies are not yet committed: the caller commits them.
template <int TILE, class Tile>
__device__ void start_tile_copies(Tile& A_tile, Tile& B_tile, const float* A,
                                  const float* B, int M, int N, int K, int row, int col, int t) {
    // TODO(chapter8): 8a, step 1. As chapter 2's loads, but for an element inside the matrix
    //   call __pipeline_memcpy_async(&A_tile[threadIdx.y][threadIdx.x], &A[...],
    //   sizeof(float)) instead of the assignment (the same for B); outside, store 0.0f.
    (void)A_tile, (void)B_tile, (void)A, (void)B, (void)M, (void)N, (void)K, (void)row, (void)col, (void)t;
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

template <int TILE>
__global__ void double_buffered_gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    // Two copies of each tile: while the block multiplies the pair in stage `phase % 2`,
    // the copies of the next phase are filling the other stage.
    __shared__ float A_tiles[2][TILE][TILE];
    __shared__ float B_tiles[2][TILE][TILE];
    const int col = blockIdx.x * TILE + threadIdx.x;
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int phases = (K + TILE - 1) / TILE;
    float sum = 0.0f;

    // TODO(chapter8): 8a, step 2. Before the loop, start the copies of phase 0 into stage 0
    //   and __pipeline_commit() them (one batch). Then for each phase p:
    //   1. start the copies of phase p + 1 into stage (p + 1) % 2 when there is one, and
    //      __pipeline_commit() in every phase, even with nothing started, so that there is
    //      always exactly one newer batch than phase p's;
    //   2. __pipeline_wait_prior(1): this thread's copies of every batch but the newest are
    //      done, so phase p's are;
    //   3. __syncthreads(): the wait covers only this thread's own copies; the tiles were
    //      filled by every thread of the block;
    //   4. add the products of stage p % 2 (multiply_tiles);
    //   5. __syncthreads(), because the next phase starts copies into this stage.
    (void)A_tiles, (void)B_tiles, (void)phases;

    if (row < M && col < N) {
        C[static_cast<size_t>(row) * N + col] = sum;
    }
}

void async_double_buffered_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("async_double_buffered_gemm", A, B, C, M, N, K);
    const tutorial::LaunchConfig launch = async_gemm_launch_config(M, N);
    double_buffered_gemm_kernel<kAsyncTile><<<launch.grid, launch.block>>>(A, B, C, M, N, K);
    CUDA_CHECK_KERNEL("double_buffered_gemm_kernel");
}

// ---- 8b: STAGES stages with a block-scope cuda::pipeline ---------------------------------

// Start this thread's copies of the phase that begins at t into the pipeline's current
// stage: as start_tile_copies, with cuda::memcpy_async into the pipeline.
template <int TILE, class Tile>
__device__ void copy_tiles_into(cuda::pipeline<cuda::thread_scope_block>& pipeline, Tile& A_tile,
                                Tile& B_tile, const float* A, const float* B, int M, int N, int K,
                                int row, int col, int t) {
    // TODO(chapter8): 8b, step 1. For an element inside the matrix,
    //   cuda::memcpy_async(&A_tile[threadIdx.y][threadIdx.x], &A[...],
    //   cuda::aligned_size_t<4>(sizeof(float)), pipeline); outside, store 0.0f. The same for B.
    (void)pipeline, (void)A_tile, (void)B_tile, (void)A, (void)B;
    (void)M, (void)N, (void)K, (void)row, (void)col, (void)t;
}

template <int TILE, int STAGES>
__global__ void pipeline_gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float A_tiles[STAGES][TILE][TILE];
    __shared__ float B_tiles[STAGES][TILE][TILE];
    // The pipeline's barriers, one pair per stage ("filled" and "released"), live in
    // shared memory, where every thread of the block sees them. make_pipeline initialises
    // them; nvcc's warning that a __shared__ variable's constructor does not run is
    // silenced at the top of the file.
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> pipeline_state;
    const int col = blockIdx.x * TILE + threadIdx.x;
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int phases = (K + TILE - 1) / TILE;
    float sum = 0.0f;

    // TODO(chapter8): 8b, step 2. Make the pipeline: auto pipeline =
    //   cuda::make_pipeline(cooperative_groups::this_thread_block(), &pipeline_state); every
    //   thread of the block is then a producer and a consumer. Keep a count `fetched` of the
    //   phases whose copies were started. For each phase p:
    //   1. while fetched < phases and fetched < p + STAGES: producer_acquire(), copy the
    //      tiles of phase `fetched` into stage fetched % STAGES (copy_tiles_into),
    //      producer_commit(), ++fetched;
    //   2. consumer_wait(): the oldest stage (p % STAGES) is filled, by every thread;
    //   3. add its products (multiply_tiles);
    //   4. consumer_release(): the stage may be refilled.
    //   No __syncthreads() is needed: the pipeline's barriers do both of its jobs.
    (void)A_tiles, (void)B_tiles, (void)pipeline_state, (void)phases;

    if (row < M && col < N) {
        C[static_cast<size_t>(row) * N + col] = sum;
    }
}

template <int STAGES>
void launch_pipeline_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    const tutorial::LaunchConfig launch = async_gemm_launch_config(M, N);
    pipeline_gemm_kernel<kAsyncTile, STAGES><<<launch.grid, launch.block>>>(A, B, C, M, N, K);
    CUDA_CHECK_KERNEL("pipeline_gemm_kernel");
}

void async_pipeline_gemm(const float* A, const float* B, float* C, int M, int N, int K, int stages) {
    tutorial::require_gemm_arguments("async_pipeline_gemm", A, B, C, M, N, K);
    // The stage count sizes the __shared__ arrays, so each has its own kernel instance.
    switch (stages) {
        case 1: launch_pipeline_gemm<1>(A, B, C, M, N, K); break;
        case 2: launch_pipeline_gemm<2>(A, B, C, M, N, K); break;
        case 3: launch_pipeline_gemm<3>(A, B, C, M, N, K); break;
        case 4: launch_pipeline_gemm<4>(A, B, C, M, N, K); break;
        default:
            throw std::invalid_argument("async_pipeline_gemm: argument stages must be 1 to " +
                                        std::to_string(kMaxPipelineStages) + ", got " + std::to_string(stages));
    }
}

// ---- 8c (going further): tiles copied by the Tensor Memory Accelerator -------------------

using BlockBarrier = cuda::barrier<cuda::thread_scope_block>;

// Every thread arrives at `filled` for the phase whose tiles begin at t; one thread (the
// issuer) first asks the Tensor Memory Accelerator for both tiles and tells the barrier how
// many bytes they will bring. The barrier's phase completes when all threads have arrived
// and all those bytes have landed. Returns this thread's token for the wait.
template <int TILE, class Tile>
__device__ BlockBarrier::arrival_token request_tiles(Tile& A_tile, Tile& B_tile,
                                                     const CUtensorMap& A_map, const CUtensorMap& B_map,
                                                     BlockBarrier& filled, int t, bool issuer) {
    // TODO(chapter8): 8c, step 2. If issuer:
    //   cuda::device::experimental::cp_async_bulk_tensor_2d_global_to_shared(&A_tile[0][0], &A_map,
    //   t, blockIdx.y * TILE, filled) (coordinates: column first, then row), the same for
    //   B's tile at column blockIdx.x * TILE, row t; then return
    //   cuda::device::barrier_arrive_tx(filled, 1, bytes of both tiles). Every other thread
    //   returns filled.arrive().
    (void)A_tile, (void)B_tile, (void)A_map, (void)B_map, (void)t, (void)issuer;
    return filled.arrive();
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

    // TODO(chapter8): 8c, step 3. The issuer init()s each barrier of `filled` for every
    //   thread of the block, then calls cuda::device::experimental::fence_proxy_async_shared_cta()
    //   so that the copy engine sees the initialised barriers; __syncthreads(). Request the
    //   tiles of the first min(STAGES, phases) phases (request_tiles, keeping each stage's
    //   token). Then for each phase p, in stage s = p % STAGES: filled[s].wait(its token),
    //   add the products, __syncthreads() (the stage is free again), and request phase
    //   p + STAGES into stage s when there is one.
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
    // TODO(chapter8): 8c, step 1. Get cuTensorMapEncodeTiled with
    //   cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000,
    //   cudaEnableDefault, &found) as a PFN_cuTensorMapEncodeTiled_v12000. Call it for a
    //   rank-2 CU_TENSOR_MAP_DATA_TYPE_FLOAT32 tensor: sizes {cols, rows} (innermost first),
    //   the one stride {cols * sizeof(float)} in bytes (of dimension 1), box {tile, tile},
    //   element strides {1, 1}, no interleave, no swizzle, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
    //   (which fills with zeros). Throw std::runtime_error when either call fails.
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
