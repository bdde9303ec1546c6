// Warp-level primitives: kernels that use them right, to check their results, and
// planted misuses that the CPU backend must report with the call's file and line.
#include "planted.h"

#include "cuda_check.h"

namespace planted {
namespace {

// Every primitive, with the results each thread gets written out (kWarpResults ints).
__global__ void warp_primitives_kernel(const int* in, int* out, int n, int delta, int width) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = in[i];
    int* mine = out + kWarpResults * i;
    mine[0] = __shfl_sync(0xffffffff, v, delta, width);
    mine[1] = __shfl_up_sync(0xffffffff, v, delta, width);
    mine[2] = __shfl_down_sync(0xffffffff, v, delta, width);
    mine[3] = __shfl_xor_sync(0xffffffff, v, delta, width);
    mine[4] = static_cast<int>(__ballot_sync(0xffffffff, v % 3 == 0));
    mine[5] = __any_sync(0xffffffff, v % 7 == 0);
    mine[6] = __all_sync(0xffffffff, v % 2 == 0);
    mine[7] = static_cast<int>(__activemask());
    (void)n;
}

// The sum of a block's values with warp shuffles: each warp adds its lanes with
// __shfl_down_sync, then warp 0 adds the warps' sums. Any block size: the mask names the
// lanes the (possibly partial) last warp has, and lanes past them add nothing.
__global__ void block_sum_kernel(const double* in, double* out) {
    __shared__ double warp_sums[32];
    const unsigned t = threadIdx.x, lane = t % warpSize, warp = t / warpSize;
    const unsigned lanes = min(static_cast<unsigned>(warpSize), blockDim.x - warp * warpSize);
    const unsigned mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
    double v = in[blockIdx.x * blockDim.x + t];
    for (unsigned offset = 16; offset > 0; offset /= 2) {
        const double other = __shfl_down_sync(mask, v, offset);
        if (lane + offset < lanes) v += other;
    }
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    const unsigned warps = (blockDim.x + warpSize - 1) / warpSize;
    if (t == 0) {
        double sum = 0.0;
        for (unsigned w = 0; w < warps; ++w) sum += warp_sums[w];
        out[blockIdx.x] = sum;
    }
}

// The last warp-synchronous steps of a shared-memory tree reduction, for the first 32
// threads of a block of 64. Without __syncwarp a lane may read a neighbour's slot before
// or after the neighbour updates it: the "lockstep" that pre-Volta code relied on.
template <bool kSyncwarp>
__global__ void warp_tree_sum_planted(const float* in, float* out) {
    __shared__ float partial[64];
    const unsigned t = threadIdx.x;
    partial[t] = in[t];
    __syncthreads();
    if (t < 32) {
        for (unsigned offset = 32; offset > 0; offset /= 2) {
            if (kSyncwarp) {
                const float sum = partial[t] + (t + offset < 64 ? partial[t + offset] : 0.0f);
                __syncwarp();
                partial[t] = sum;
                __syncwarp();
            } else {
                partial[t] += t + offset < 64 ? partial[t + offset] : 0.0f;
            }
        }
    }
    if (t == 0) *out = partial[0];
}

__global__ void shuffle_after_exit_planted(int* out) {
    int v = threadIdx.x;
    if (threadIdx.x >= 16) return;
    v += __shfl_down_sync(0xffffffff, v, 1);
    out[threadIdx.x] = v;
}

__global__ void shuffle_in_branch_planted(int* out) {
    int v = threadIdx.x;
    if (threadIdx.x % 32 < 16) v = __shfl_sync(0xffffffff, v, 0);
    __syncthreads();  // where lanes 16-31 wait
    out[threadIdx.x] = v;
}

__global__ void syncwarp_by_parity_planted(int* out) {
    const int lane = threadIdx.x % 32;
    if (lane % 2 == 0) {
        __syncwarp();  // the even lanes'
    } else {
        __syncwarp();  // the odd lanes'
    }
    out[threadIdx.x] = lane;
}

__global__ void full_mask_in_partial_warp_planted(int* out) {
    out[threadIdx.x] = __shfl_xor_sync(0xffffffff, static_cast<int>(threadIdx.x), 1);
}

__global__ void mask_without_caller_planted(int* out) {
    out[threadIdx.x] = __shfl_sync(0x0000ffff, static_cast<int>(threadIdx.x), 0);
}

}  // namespace

void warp_primitives(const int* in, int* out, int n, int block, int delta, int width) {
    warp_primitives_kernel<<<n / block, block>>>(in, out, n, delta, width);
    CUDA_CHECK_KERNEL("warp_primitives_kernel");
}

void block_sums(const double* in, double* out, int blocks, int block) {
    block_sum_kernel<<<blocks, block>>>(in, out);
    CUDA_CHECK_KERNEL("block_sum_kernel");
}

void warp_tree_sum(const float* in, float* out, bool syncwarp) {
    if (syncwarp) {
        warp_tree_sum_planted<true><<<1, 64>>>(in, out);
    } else {
        warp_tree_sum_planted<false><<<1, 64>>>(in, out);
    }
    CUDA_CHECK_KERNEL("warp_tree_sum_planted");
}

void warp_misuse(WarpMisuse misuse, int* out) {
    // The kernels' names, in the order of WarpMisuse, for the check's message.
    const char* const kernels[] = {"shuffle_after_exit_planted", "shuffle_in_branch_planted", "syncwarp_by_parity_planted",
                                   "full_mask_in_partial_warp_planted", "mask_without_caller_planted"};
    switch (misuse) {
        case WarpMisuse::shuffle_after_exit: shuffle_after_exit_planted<<<1, 32>>>(out); break;
        case WarpMisuse::shuffle_in_branch: shuffle_in_branch_planted<<<1, 64>>>(out); break;
        case WarpMisuse::syncwarp_by_parity: syncwarp_by_parity_planted<<<1, 32>>>(out); break;
        case WarpMisuse::full_mask_in_partial_warp: full_mask_in_partial_warp_planted<<<1, 48>>>(out); break;
        case WarpMisuse::mask_without_caller: mask_without_caller_planted<<<1, 32>>>(out); break;
    }
    CUDA_CHECK_KERNEL(kernels[static_cast<int>(misuse)]);
}

}  // namespace planted
