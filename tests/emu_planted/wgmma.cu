// Hopper's warpgroup MMA (common/wgmma.h) on the CPU backend: one warpgroup multiplies
// tiles the TMA writes in the 128-byte swizzle, with both layouts of B, then with planted
// mistakes that the backend must report with the call's file and line; then a persistent,
// warp-specialized block (a producer warpgroup, two consumers, setmaxnreg) and its mistakes.
#include "planted.h"

#include "cuda_check.h"
#include "wgmma.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda/barrier>

#include <cstdint>
#include <utility>

// A __shared__ barrier is initialised by init(), not by a constructor (see async_tma.cu).
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace planted {
namespace {

using Barrier = cuda::barrier<cuda::thread_scope_block>;
using tutorial::WgmmaMajor;

constexpr int kN = 256;           // D's columns: one wgmma.m64n256k16
constexpr int kBoxColumns = 64;   // 128 bytes of BF16: the widest box of the 128-byte swizzle

// The descriptor of common/wgmma.h's table with the 128-byte swizzle (mode 1), or @p mode.
__device__ std::uint64_t descriptor(std::uint32_t start, std::uint32_t leading, std::uint32_t stride,
                                    std::uint64_t mode = 1) {
    const auto encode = [](std::uint32_t x) { return static_cast<std::uint64_t>((x & 0x3FFFF) >> 4); };
    return encode(start) | encode(leading) << 16 | encode(stride) << 32 | mode << 62;
}

template <WgmmaBug BUG>
__global__ void wgmma_tile_planted(const __grid_constant__ CUtensorMap A_map, const __grid_constant__ CUtensorMap B_map,
                                   float* D, int k_tiles) {
    // A: 64 rows of 128 bytes (8 KiB), with 1 KiB to spare for the misaligned variant;
    // B: 64 rows of K, as four 64-column boxes (MN-major), or 256 rows of 128 bytes (K-major).
    __shared__ __align__(1024) __nv_bfloat16 A_tile[64 * kWgmmaTileK + 512];
    __shared__ __align__(1024) __nv_bfloat16 B_tile[kWgmmaTileK * kN];
    __shared__ Barrier full;
    constexpr bool b_k_major = BUG == WgmmaBug::none_b_k_major;
    __nv_bfloat16* A_at = BUG == WgmmaBug::a_start_off_1024 ? &A_tile[64] : &A_tile[0];  // 128 bytes on
    if (threadIdx.x == 0) {
        init(&full, blockDim.x);
        cuda::device::experimental::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    float acc[128];
    for (int t = 0; t < k_tiles; ++t) {
        Barrier::arrival_token token;
        if (threadIdx.x == 0) {
            cuda::device::experimental::cp_async_bulk_tensor_2d_global_to_shared(A_at, &A_map, t * kWgmmaTileK, 0, full);
            if (b_k_major) {
                cuda::device::experimental::cp_async_bulk_tensor_2d_global_to_shared(&B_tile[0], &B_map, t * kWgmmaTileK, 0,
                                                                                      full);
            } else {
                for (int box = 0; box < kN / kBoxColumns; ++box) {
                    using cuda::device::experimental::cp_async_bulk_tensor_2d_global_to_shared;
                    cp_async_bulk_tensor_2d_global_to_shared(&B_tile[box * 4096], &B_map, box * 64, t * 64, full);  // B's boxes
                }
            }
            token = cuda::device::barrier_arrive_tx(full, 1, (64 + kN) * kWgmmaTileK * 2);
        } else {
            token = full.arrive();
        }
        if (BUG != WgmmaBug::no_barrier_wait) full.wait(std::move(token));
        if (BUG != WgmmaBug::no_fence) tutorial::wgmma_fence(acc);
        const std::uint32_t a_tile = tutorial::shared_window_address(A_at);
        const std::uint32_t b_tile = tutorial::shared_window_address(&B_tile);  // &B_tile[0] would read it
        for (int k = 0; k < kWgmmaTileK / 16; ++k) {
            const std::uint64_t a = descriptor(a_tile + 32 * k, 16, 1024);
            const bool accumulate = t > 0 || k > 0;
            if (b_k_major) {
                // 256 rows of n, 128 bytes of K each: the same layout as A.
                const std::uint64_t b = descriptor(b_tile + 32 * k, 16, 1024);
                tutorial::wgmma_m64n256k16_bf16<WgmmaMajor::k, WgmmaMajor::k>(acc, a, b, accumulate);
            } else {
                // Rows of K 128 bytes apart, 8 of them 1024; the next 64 columns one box (8 KiB) on.
                const std::uint32_t stride = BUG == WgmmaBug::b_stride_512 ? 512 : 1024;
                const std::uint32_t leading = BUG == WgmmaBug::b_leading_4096 ? 4096 : 8192;
                const std::uint64_t b = descriptor(b_tile + 2048 * k, leading, stride, BUG == WgmmaBug::b_no_swizzle ? 0 : 1);
                tutorial::wgmma_m64n256k16_bf16<WgmmaMajor::k, WgmmaMajor::mn>(acc, a, b, accumulate);
            }
        }
        if (BUG != WgmmaBug::no_commit) tutorial::wgmma_commit_group();
        if (BUG != WgmmaBug::no_wait && BUG != WgmmaBug::refill_before_wait) tutorial::wgmma_wait_group<0>(acc);
        __syncthreads();  // every thread is done with the stage before it is refilled
    }
    if (BUG == WgmmaBug::refill_before_wait || BUG == WgmmaBug::no_commit) tutorial::wgmma_wait_group<0>(acc);
    // Thread t of the warpgroup: rows 16 (t / 32) + (t % 32) / 4 (+ 8), columns 8 j + 2 (t % 4) (+ 1).
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int v = 0; v < 128; ++v) {
        const int row = 16 * warp + lane / 4 + 8 * (v / 2 % 2), col = 8 * (v / 4) + 2 * (lane % 4) + v % 2;
        D[row * kN + col] = acc[v];
    }
}

// A tensor map of a rows × cols BF16 matrix, boxes of box_rows × 64 columns, 128-byte swizzle.
CUtensorMap bf16_map(const __nv_bfloat16* matrix, int rows, int cols, int box_rows) {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found;
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found));
    const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * sizeof(__nv_bfloat16)};
    const cuuint32_t box[2] = {kBoxColumns, static_cast<cuuint32_t>(box_rows)};
    const cuuint32_t element_strides[2] = {1, 1};
    CUtensorMap map;
    encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<__nv_bfloat16*>(matrix), dims, strides, box,
           element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return map;
}

// ---- A warp-specialized, persistent block (chapter 10's step 10d in small) ------------------

constexpr int kSpecializedStages = 2;
constexpr int kStageBytes = (128 + kN) * kWgmmaTileK * 2;  // A's 128 × 64 box, then B's four 64 × 64: 48 KiB
constexpr int kSpecializedSteps = 2;                         // steps along K of a tile: K = 128
constexpr std::size_t kSpecializedShared = kSpecializedStages * kStageBytes + 2 * kSpecializedStages * sizeof(Barrier) + 1024;

template <SpecializedBug BUG>
__global__ void __launch_bounds__(384, 1)
    wgmma_specialized_planted(const __grid_constant__ CUtensorMap A_map, const __grid_constant__ CUtensorMap B_map,
                              float* D, int tiles) {
    extern __shared__ __align__(1024) unsigned char specialized_shared[];
    unsigned char* stages =
        specialized_shared + (1024 - tutorial::shared_window_address(specialized_shared) % 1024) % 1024;
    Barrier* full = reinterpret_cast<Barrier*>(stages + kSpecializedStages * kStageBytes);
    Barrier* empty = full + kSpecializedStages;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kSpecializedStages; ++s) {
            init(&full[s], 1);
            init(&empty[s], 8);  // one arrival per consumer warp
        }
        cuda::device::experimental::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    if (threadIdx.x < 128) {  // the producer
        if (BUG == SpecializedBug::setmaxnreg_in_one_warp) {
            if (threadIdx.x < 32) tutorial::setmaxnreg_dec<40>();
        } else if (BUG != SpecializedBug::setmaxnreg_in_one_thread) {
            tutorial::setmaxnreg_dec<40>();
        }
        if (threadIdx.x != 0) return;
        if (BUG == SpecializedBug::setmaxnreg_in_one_thread) tutorial::setmaxnreg_dec<40>();
        int step = 0;
        for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
            for (int k = 0; k < kSpecializedSteps; ++k, ++step) {
                const int s = step % kSpecializedStages;
                if (BUG != SpecializedBug::refill_without_empty_wait && step >= kSpecializedStages) {
                    empty[s].wait_parity((step / kSpecializedStages - 1) % 2);
                }
                unsigned char* stage = stages + s * kStageBytes;
                (void)cuda::device::barrier_arrive_tx(full[s], 1, kStageBytes);
                using cuda::device::experimental::cp_async_bulk_tensor_2d_global_to_shared;
                cp_async_bulk_tensor_2d_global_to_shared(stage, &A_map, k * 64, tile * 128, full[s]);
                for (int box = 0; box < kN / kBoxColumns; ++box) {
                    cp_async_bulk_tensor_2d_global_to_shared(stage + 16384 + box * 8192, &B_map, box * 64, k * 64, full[s]);
                }
            }
        }
        return;
    }
    tutorial::setmaxnreg_inc<232>();
    const int consumer = threadIdx.x / 128 - 1, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    float acc[128];
    int step = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        if (BUG == SpecializedBug::count_restarts_per_tile) step = 0;
        for (int k = 0; k < kSpecializedSteps; ++k, ++step) {
            const int s = step % kSpecializedStages;
            full[s].wait_parity(step / kSpecializedStages % 2);
            __syncwarp();
            const std::uint32_t a_tile = tutorial::shared_window_address(stages + s * kStageBytes) + consumer * 8192;
            const std::uint32_t b_tile = tutorial::shared_window_address(stages + s * kStageBytes + 16384);
            tutorial::wgmma_fence(acc);
            for (int kk = 0; kk < kWgmmaTileK / 16; ++kk) {
                const std::uint64_t a = descriptor(a_tile + 32 * kk, 16, 1024);
                const std::uint64_t b = descriptor(b_tile + 2048 * kk, 8192, 1024);
                tutorial::wgmma_m64n256k16_bf16<WgmmaMajor::k, WgmmaMajor::mn>(acc, a, b, k > 0 || kk > 0);
            }
            tutorial::wgmma_commit_group();
            tutorial::wgmma_wait_group<1>(acc);
            if (k > 0 && lane == 0) (void)empty[(step - 1) % kSpecializedStages].arrive();
        }
        tutorial::wgmma_wait_group<0>(acc);
        if (lane == 0) (void)empty[(step - 1) % kSpecializedStages].arrive();
        for (int v = 0; v < 128; ++v) {
            const int row = tile * 128 + consumer * 64 + 16 * warp + lane / 4 + 8 * (v / 2 % 2);
            D[row * kN + 8 * (v / 4) + 2 * (lane % 4) + v % 2] = acc[v];
        }
    }
}

template <SpecializedBug BUG>
void launch_specialized(const CUtensorMap& A_map, const CUtensorMap& B_map, float* D, int tiles) {
    CUDA_CHECK(cudaFuncSetAttribute(wgmma_specialized_planted<BUG>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(kSpecializedShared)));
    wgmma_specialized_planted<BUG><<<1, 384, kSpecializedShared>>>(A_map, B_map, D, tiles);
}

}  // namespace

void wgmma_specialized(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D, int tiles, SpecializedBug bug) {
    const int K = kSpecializedSteps * kWgmmaTileK;
    const CUtensorMap A_map = bf16_map(A, 128 * tiles, K, 128), B_map = bf16_map(B, K, kN, kWgmmaTileK);
    switch (bug) {
        case SpecializedBug::none: launch_specialized<SpecializedBug::none>(A_map, B_map, D, tiles); break;
        case SpecializedBug::refill_without_empty_wait:
            launch_specialized<SpecializedBug::refill_without_empty_wait>(A_map, B_map, D, tiles);
            break;
        case SpecializedBug::count_restarts_per_tile:
            launch_specialized<SpecializedBug::count_restarts_per_tile>(A_map, B_map, D, tiles);
            break;
        case SpecializedBug::setmaxnreg_in_one_warp:
            launch_specialized<SpecializedBug::setmaxnreg_in_one_warp>(A_map, B_map, D, tiles);
            break;
        case SpecializedBug::setmaxnreg_in_one_thread:
            launch_specialized<SpecializedBug::setmaxnreg_in_one_thread>(A_map, B_map, D, tiles);
            break;
    }
    CUDA_CHECK_KERNEL("wgmma_specialized_planted");
}

void wgmma_tile(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D, int k_tiles, WgmmaBug bug) {
    const int K = k_tiles * kWgmmaTileK;
    const CUtensorMap A_map = bf16_map(A, 64, K, 64);
    const CUtensorMap B_map = bug == WgmmaBug::none_b_k_major ? bf16_map(B, kN, K, kN) : bf16_map(B, K, kN, kWgmmaTileK);
    switch (bug) {
        case WgmmaBug::none: wgmma_tile_planted<WgmmaBug::none><<<1, 128>>>(A_map, B_map, D, k_tiles); break;
        case WgmmaBug::none_b_k_major: wgmma_tile_planted<WgmmaBug::none_b_k_major><<<1, 128>>>(A_map, B_map, D, k_tiles); break;
        case WgmmaBug::b_no_swizzle: wgmma_tile_planted<WgmmaBug::b_no_swizzle><<<1, 128>>>(A_map, B_map, D, k_tiles); break;
        case WgmmaBug::b_stride_512: wgmma_tile_planted<WgmmaBug::b_stride_512><<<1, 128>>>(A_map, B_map, D, k_tiles); break;
        case WgmmaBug::b_leading_4096: wgmma_tile_planted<WgmmaBug::b_leading_4096><<<1, 128>>>(A_map, B_map, D, k_tiles); break;
        case WgmmaBug::a_start_off_1024: wgmma_tile_planted<WgmmaBug::a_start_off_1024><<<1, 128>>>(A_map, B_map, D, k_tiles); break;
        case WgmmaBug::no_barrier_wait: wgmma_tile_planted<WgmmaBug::no_barrier_wait><<<1, 128>>>(A_map, B_map, D, k_tiles); break;
        case WgmmaBug::no_fence: wgmma_tile_planted<WgmmaBug::no_fence><<<1, 128>>>(A_map, B_map, D, k_tiles); break;
        case WgmmaBug::no_commit: wgmma_tile_planted<WgmmaBug::no_commit><<<1, 128>>>(A_map, B_map, D, k_tiles); break;
        case WgmmaBug::no_wait: wgmma_tile_planted<WgmmaBug::no_wait><<<1, 128>>>(A_map, B_map, D, k_tiles); break;
        case WgmmaBug::refill_before_wait: wgmma_tile_planted<WgmmaBug::refill_before_wait><<<1, 128>>>(A_map, B_map, D, k_tiles); break;
    }
    CUDA_CHECK_KERNEL("wgmma_tile_planted");
}

}  // namespace planted
