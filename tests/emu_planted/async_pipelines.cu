// Pipelines of asynchronous copies into shared memory, correct and with planted bugs: a
// tiled GEMM whose tiles are loaded STAGES - 1 tiles ahead, with the cp.async primitives
// of <cuda_pipeline.h> and with a block-scope cuda::pipeline of <cuda/pipeline>.
#include "planted.h"

#include "cuda_check.h"
#include "launch_config.h"

#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_pipeline.h>

#include <type_traits>

// A __shared__ barrier or pipeline state is initialised by init() or make_pipeline(), not
// by a constructor: nvcc's warning about its dynamic initialisation does not apply (the CUDA
// Programming Guide's examples silence it the same way).
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace planted {
namespace {

constexpr int kTile = 16;

// Tile `tile` (of kTile columns of A, kTile rows of B) for this thread: one element of each,
// copied asynchronously; elements past the matrices' edges are zeros (zfill), read from a
// valid address.
__device__ void load_tile(const float* A, const float* B, float (*a_stage)[kTile], float (*b_stage)[kTile], int M,
                          int N, int K, int tile, int row, int col) {
    const int a_col = tile * kTile + threadIdx.x, b_row = tile * kTile + threadIdx.y;
    const bool a_in = row < M && a_col < K, b_in = b_row < K && col < N;
    __pipeline_memcpy_async(&a_stage[threadIdx.y][threadIdx.x], a_in ? &A[row * K + a_col] : A, sizeof(float),
                            a_in ? 0 : sizeof(float));
    __pipeline_memcpy_async(&b_stage[threadIdx.y][threadIdx.x], b_in ? &B[b_row * N + col] : B, sizeof(float),
                            b_in ? 0 : sizeof(float));
}

// One stage's products, read in a helper that takes the __shared__ tiles by reference, as
// chapter 8's multiply_tiles does: its reads are reported at its own lines.
template <class Stage>
__device__ float stage_products(const Stage& a_stage, const Stage& b_stage, float sum) {
    for (int k = 0; k < kTile; ++k) sum += a_stage[threadIdx.y][k] * b_stage[k][threadIdx.x];
    return sum;
}

template <int STAGES, PipelineBug BUG>
__global__ void primitives_gemm_planted(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float a_tiles[STAGES][kTile][kTile];
    __shared__ float b_tiles[STAGES][kTile][kTile];
    const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
    const int tiles = (K + kTile - 1) / kTile;
    // The first STAGES - 1 tiles. A group per tile, empty past the last, so that tile t is
    // always the group STAGES - 1 groups before the newest.
    for (int t = 0; t < STAGES - 1; ++t) {
        if (t < tiles) load_tile(A, B, a_tiles[t], b_tiles[t], M, N, K, t, row, col);
        __pipeline_commit();
    }
    float sum = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        // Refill the stage of tile t - 1 with tile t + STAGES - 1.
        const int next = t + STAGES - 1;
        if (next < tiles) load_tile(A, B, a_tiles[next % STAGES], b_tiles[next % STAGES], M, N, K, next, row, col);
        __pipeline_commit();
        if (BUG == PipelineBug::wait_off_by_one) {
            __pipeline_wait_prior(STAGES);  // planted: waits for none of the tiles in flight
        } else if (BUG != PipelineBug::no_wait && BUG != PipelineBug::no_wait_read_in_helper) {
            __pipeline_wait_prior(STAGES - 1);  // this thread's part of tile t has landed
        }
        if (BUG != PipelineBug::no_sync_after_wait) __syncthreads();  // ... and every thread's
        const int s = t % STAGES;
        if (BUG == PipelineBug::no_wait_read_in_helper) {
            sum = stage_products(a_tiles[s], b_tiles[s], sum);
        } else {
            for (int k = 0; k < kTile; ++k) sum += a_tiles[s][threadIdx.y][k] * b_tiles[s][k][threadIdx.x];
        }
        if (BUG != PipelineBug::no_sync_before_refill) __syncthreads();  // everyone is done with stage s before its refill
    }
    if (row < M && col < N) C[row * N + col] = sum;
}

template <int STAGES, PipelineBug BUG>
__global__ void pipeline_gemm_planted(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float a_tiles[STAGES][kTile][kTile];
    __shared__ float b_tiles[STAGES][kTile][kTile];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    const auto block = cooperative_groups::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
    const int tiles = (K + kTile - 1) / kTile;
    float sum = 0.0f;
    int fetched = 0;
    for (int t = 0; t < tiles; ++t) {
        for (; fetched < tiles && fetched < t + STAGES; ++fetched) {
            const int s = fetched % STAGES;
            if (BUG != PipelineBug::no_acquire) pipe.producer_acquire();
            const int a_col = fetched * kTile + threadIdx.x, b_row = fetched * kTile + threadIdx.y;
            if (row < M && a_col < K) {
                cuda::memcpy_async(&a_tiles[s][threadIdx.y][threadIdx.x], &A[row * K + a_col], sizeof(float), pipe);
            } else {
                a_tiles[s][threadIdx.y][threadIdx.x] = 0.0f;
            }
            if (b_row < K && col < N) {
                cuda::memcpy_async(&b_tiles[s][threadIdx.y][threadIdx.x], &B[b_row * N + col], sizeof(float), pipe);
            } else {
                b_tiles[s][threadIdx.y][threadIdx.x] = 0.0f;
            }
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        if (BUG == PipelineBug::extra_consumer_wait && t == tiles - 1) {
            pipe.consumer_release();
            pipe.consumer_wait();  // planted: no stage is left that this thread committed
        }
        // planted (stage_ahead): the stage after the one waited for, whose copies may land later
        const int s = BUG == PipelineBug::stage_ahead ? (t + 1) % STAGES : t % STAGES;
        if (BUG == PipelineBug::release_before_use) pipe.consumer_release();  // planted: the stage is still read below
        for (int k = 0; k < kTile; ++k) sum += b_tiles[s][k][threadIdx.x] * a_tiles[s][threadIdx.y][k];
        if (BUG != PipelineBug::release_before_use && BUG != PipelineBug::no_release) pipe.consumer_release();
    }
    if (row < M && col < N) C[row * N + col] = sum;
}

// Chunks of 256 floats, each copied by the whole block with one group memcpy_async of
// 16-byte pieces through a block-scope pipeline; each thread then reads elements other
// threads copied.
template <int STAGES>
__global__ void group_copies_kernel(const float* in, float* out, int chunks) {
    constexpr int kChunk = 256;
    __shared__ alignas(16) float stages[STAGES][kChunk];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    const auto block = cooperative_groups::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    int fetched = 0;
    for (int c = 0; c < chunks; ++c) {
        for (; fetched < chunks && fetched < c + STAGES; ++fetched) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, stages[fetched % STAGES], in + fetched * kChunk,
                               cuda::aligned_size_t<16>(kChunk * sizeof(float)), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        for (int i = block.thread_rank(); i < kChunk; i += block.size()) {
            out[c * kChunk + i] = 2.0f * stages[c % STAGES][(i + 5) % kChunk];
        }
        pipe.consumer_release();
    }
}

// Call launch(std::integral_constant<PipelineBug, B>()) for the B of Bugs that @p bug is:
// a kernel for each bug a pipeline GEMM plants, chosen at run time. Other bugs launch nothing.
template <PipelineBug... Bugs, class Launch>
void for_bug(PipelineBug bug, Launch launch) {
    ((bug == Bugs ? launch(std::integral_constant<PipelineBug, Bugs>()) : void()), ...);
}

template <int STAGES>
void launch_gemm(const float* A, const float* B, float* C, int M, int N, int K, PipelineApi api, PipelineBug bug,
                 dim3 grid, dim3 block) {
    if (api == PipelineApi::primitives) {
        for_bug<PipelineBug::none, PipelineBug::no_wait, PipelineBug::no_sync_after_wait, PipelineBug::no_sync_before_refill,
                PipelineBug::wait_off_by_one, PipelineBug::no_wait_read_in_helper>(bug, [&](auto chosen) {
            constexpr PipelineBug BUG = decltype(chosen)::value;
            primitives_gemm_planted<STAGES, BUG><<<grid, block>>>(A, B, C, M, N, K);
        });
    } else {
        for_bug<PipelineBug::none, PipelineBug::release_before_use, PipelineBug::no_release, PipelineBug::no_acquire,
                PipelineBug::extra_consumer_wait, PipelineBug::stage_ahead>(bug, [&](auto chosen) {
            constexpr PipelineBug BUG = decltype(chosen)::value;
            pipeline_gemm_planted<STAGES, BUG><<<grid, block>>>(A, B, C, M, N, K);
        });
    }
}

}  // namespace

void group_copies(const float* in, float* out, int chunks, int stages) {
    if (stages == 2) group_copies_kernel<2><<<1, 64>>>(in, out, chunks);
    if (stages == 3) group_copies_kernel<3><<<1, 64>>>(in, out, chunks);
    CUDA_CHECK_KERNEL("group_copies_kernel");
}

void pipelined_gemm(const float* A, const float* B, float* C, int M, int N, int K, PipelineApi api, int stages,
                    PipelineBug bug) {
    const dim3 block(kTile, kTile), grid(tutorial::ceil_div(N, kTile), tutorial::ceil_div(M, kTile));
    if (stages == 2) launch_gemm<2>(A, B, C, M, N, K, api, bug, grid, block);
    if (stages == 3) launch_gemm<3>(A, B, C, M, N, K, api, bug, grid, block);
    CUDA_CHECK_KERNEL("pipelined_gemm");
}

}  // namespace planted
