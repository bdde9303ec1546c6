// Tiles loaded by the Tensor Memory Accelerator through a cuda::barrier, correct and with
// planted bugs; and single copies that break the rules of cp.async and bulk copies.
#include "planted.h"

#include "cuda_check.h"
#include "launch_config.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda/barrier>
#include <cuda_pipeline.h>

#include <utility>

// A __shared__ barrier or pipeline state is initialised by init() or make_pipeline(), not
// by a constructor: nvcc's warning about its dynamic initialisation does not apply (the CUDA
// Programming Guide's examples silence it the same way).
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace planted {
namespace {

using Barrier = cuda::barrier<cuda::thread_scope_block>;

template <TmaBug BUG>
__global__ void tma_tiles_planted(const __grid_constant__ CUtensorMap map, float* out) {
    __shared__ alignas(128) float tile[kTmaBoxRows][kTmaBoxCols];
    __shared__ Barrier bar;
    if (threadIdx.x == 0 || BUG == TmaBug::init_by_every_thread) {
        init(&bar, blockDim.x);
        cuda::device::experimental::fence_proxy_async_shared_cta();  // the TMA unit sees the initialised barrier
    }
    if (BUG != TmaBug::no_sync_after_init) __syncthreads();
    Barrier::arrival_token token;
    if (threadIdx.x == 0) {
        void* destination = BUG == TmaBug::unaligned_destination ? static_cast<void*>(&tile[0][4]) : static_cast<void*>(&tile);
        cuda::device::experimental::cp_async_bulk_tensor_2d_global_to_shared(
            destination, &map, blockIdx.x * kTmaBoxCols, blockIdx.y * kTmaBoxRows, bar);
        const int expected = BUG == TmaBug::too_few_bytes_expected  ? sizeof(tile) - 16
                             : BUG == TmaBug::too_many_bytes_expected ? sizeof(tile) + 16
                                                                      : sizeof(tile);
        token = cuda::device::barrier_arrive_tx(bar, 1, expected);
    } else {
        token = bar.arrive();
    }
    if (BUG != TmaBug::no_wait) bar.wait(std::move(token));
    // The whole box, out-of-bounds fill included, to this block's slot of out.
    const int block = blockIdx.y * gridDim.x + blockIdx.x;
    for (int i = threadIdx.x; i < kTmaBoxRows * kTmaBoxCols; i += blockDim.x) {
        out[block * kTmaBoxRows * kTmaBoxCols + i] = tile[i / kTmaBoxCols][i % kTmaBoxCols];
    }
}

template <CopyRuleBug BUG>
__global__ void copy_rules_planted(const float* in, float* out, int n) {
    __shared__ alignas(16) float staged[64];
    __shared__ Barrier bar;
    const int i = threadIdx.x;
    if (BUG == CopyRuleBug::bulk_size_not_multiple_of_16 || BUG == CopyRuleBug::none_bulk) {
        if (i == 0) init(&bar, blockDim.x);
        __syncthreads();
        const std::size_t bytes = BUG == CopyRuleBug::none_bulk ? n * sizeof(float) : 20;
        if (i == 0) cuda::memcpy_async(staged, in, cuda::aligned_size_t<16>(bytes), bar);
        bar.arrive_and_wait();
    } else {
        if (BUG == CopyRuleBug::size_12) {
            __pipeline_memcpy_async(&staged[4 * i], &in[i], 12);
        } else if (BUG == CopyRuleBug::misaligned_16) {
            __pipeline_memcpy_async(&staged[4 * i + 1], &in[i], 16);
        } else if (BUG == CopyRuleBug::source_past_end) {
            __pipeline_memcpy_async(&staged[4 * i], in + 4 * i, 16);  // thread 4 on: past the end of n floats
        } else {
            __pipeline_memcpy_async(&staged[i], &in[i], sizeof(float));
        }
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncthreads();
    }
    if (i < n) out[i] = staged[i] * 2.0f;
}

}  // namespace

cudaError_t make_tile_map(CUtensorMap* map, const float* matrix, int rows, int cols, int pitch, bool nan_fill) {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found;
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || function == nullptr) return cudaErrorNotSupported;
    const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(pitch) * sizeof(float)};
    const cuuint32_t box[2] = {kTmaBoxCols, kTmaBoxRows};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUresult result = encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(matrix), dims, strides, box,
                                   element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                   CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                   nan_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                            : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return result == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

void tma_tiles(const CUtensorMap& map, float* out, int rows, int cols, TmaBug bug) {
    const dim3 grid(tutorial::ceil_div(cols, kTmaBoxCols), tutorial::ceil_div(rows, kTmaBoxRows)), block(64);
    switch (bug) {
        case TmaBug::none: tma_tiles_planted<TmaBug::none><<<grid, block>>>(map, out); break;
        case TmaBug::no_wait: tma_tiles_planted<TmaBug::no_wait><<<grid, block>>>(map, out); break;
        case TmaBug::too_few_bytes_expected: tma_tiles_planted<TmaBug::too_few_bytes_expected><<<grid, block>>>(map, out); break;
        case TmaBug::too_many_bytes_expected: tma_tiles_planted<TmaBug::too_many_bytes_expected><<<grid, block>>>(map, out); break;
        case TmaBug::unaligned_destination: tma_tiles_planted<TmaBug::unaligned_destination><<<grid, block>>>(map, out); break;
        case TmaBug::init_by_every_thread: tma_tiles_planted<TmaBug::init_by_every_thread><<<grid, block>>>(map, out); break;
        case TmaBug::no_sync_after_init: tma_tiles_planted<TmaBug::no_sync_after_init><<<grid, block>>>(map, out); break;
    }
    CUDA_CHECK_KERNEL("tma_tiles_planted");
}

void copy_rules(const float* in, float* out, int n, CopyRuleBug bug) {
    switch (bug) {
        case CopyRuleBug::none: copy_rules_planted<CopyRuleBug::none><<<1, 16>>>(in, out, n); break;
        case CopyRuleBug::none_bulk: copy_rules_planted<CopyRuleBug::none_bulk><<<1, 16>>>(in, out, n); break;
        case CopyRuleBug::size_12: copy_rules_planted<CopyRuleBug::size_12><<<1, 16>>>(in, out, n); break;
        case CopyRuleBug::misaligned_16: copy_rules_planted<CopyRuleBug::misaligned_16><<<1, 16>>>(in, out, n); break;
        case CopyRuleBug::source_past_end: copy_rules_planted<CopyRuleBug::source_past_end><<<1, 16>>>(in, out, n); break;
        case CopyRuleBug::bulk_size_not_multiple_of_16:
            copy_rules_planted<CopyRuleBug::bulk_size_not_multiple_of_16><<<1, 16>>>(in, out, n);
            break;
    }
    CUDA_CHECK_KERNEL("copy_rules_planted");
}

}  // namespace planted
