// Mark Harris's intermediate reduction steps (harris_reduction.h), in his order. Each kernel
// writes one partial sum per block; the host code chains the passes, as the chapter's does,
// so every step is correct for any n. His kernels 1 and 3 are the chapter's 6a and 6b.
#include "bench/harris_reduction.h"

#include "cuda_check.h"
#include "launch_config.h"
#include "reduction.h"
#include "reduction_reference.h"

namespace tutorial::benchmark {

namespace {

// Harris 2: the tree of 6a with the working threads packed at the front: thread t adds at
// element 2·s·t. No divergence while 32 or more threads add, but the 32 lanes of a warp touch
// words 2s apart: a 2-way bank conflict at s = 1, 4-way at s = 2, up to 16-way.
__global__ void strided_index_kernel(const float* input, float* partial, int n) {
    __shared__ float cache[kReduceBlock];
    const unsigned t = threadIdx.x;
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + t;
    cache[t] = i < n ? input[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * t;
        if (index < blockDim.x) {
            cache[index] += cache[index + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = cache[0];
    }
}

// Harris 4 to 7 load two elements a block apart and add them before the tree: a block covers
// 2 · kReduceBlock elements. This thread's pair for the block, 0 past the end.
__device__ float first_add(const float* input, int n, long long first) {
    float pair = first < n ? input[first] : 0.0f;
    if (first + kReduceBlock < n) {
        pair += input[first + kReduceBlock];
    }
    return pair;
}

// 6b's tree over the block's cache, while s > 32 (Harris 5 and 6): `Size` is the number of
// threads, blockDim.x at run time (0) or a compile-time constant.
template <unsigned Size>
__device__ void tree_above_warp(float* cache, unsigned t) {
    const unsigned size = Size != 0 ? Size : blockDim.x;
#pragma unroll
    for (unsigned s = size / 2; s > 32; s /= 2) {
        if (t < s) {
            cache[t] += cache[t + s];
        }
        __syncthreads();
    }
}

// The last six steps, s = 32 … 1, in the first warp alone. Harris wrote them through a
// volatile pointer and no barrier, relying on the warp's lanes running in lockstep; since
// Volta they need not, so each step reads, waits for the whole warp (__syncwarp), writes and
// waits again: "Using CUDA Warp-Level Primitives" (Lin and Grover, NVIDIA, 2018) gives this form.
__device__ void last_warp(float* cache, unsigned t) {
    float value = cache[t];
#pragma unroll
    for (unsigned s = 32; s > 0; s /= 2) {
        value += cache[t + s];
        __syncwarp();
        cache[t] = value;
        __syncwarp();
    }
}

// Harris 4: first add during load, then 6b's tree.
__global__ void first_add_kernel(const float* input, float* partial, int n) {
    __shared__ float cache[kReduceBlock];
    const unsigned t = threadIdx.x;
    cache[t] = first_add(input, n, static_cast<long long>(blockIdx.x) * (2 * kReduceBlock) + t);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (t < s) {
            cache[t] += cache[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = cache[0];
    }
}

// Harris 5 (Size = 0: the tree's loop runs to blockDim.x) and 6 (Size = kReduceBlock: the
// whole tree unrolled): the tree stops at s = 64 and the first warp does the rest.
template <unsigned Size>
__global__ void unrolled_kernel(const float* input, float* partial, int n) {
    __shared__ float cache[kReduceBlock];
    const unsigned t = threadIdx.x;
    cache[t] = first_add(input, n, static_cast<long long>(blockIdx.x) * (2 * kReduceBlock) + t);
    __syncthreads();
    tree_above_warp<Size>(cache, t);
    if (t < 32) {
        last_warp(cache, t);
    }
    if (t == 0) {
        partial[blockIdx.x] = cache[0];
    }
}

// Harris 7: each thread adds pair after pair, a whole grid (2 · kReduceBlock · gridDim.x
// elements) apart, in a register; then Harris 6's tree.
__global__ void many_per_thread_kernel(const float* input, float* partial, int n) {
    __shared__ float cache[kReduceBlock];
    const unsigned t = threadIdx.x;
    const long long step = 2LL * kReduceBlock * gridDim.x;
    float sum = 0.0f;
    for (long long first = static_cast<long long>(blockIdx.x) * (2 * kReduceBlock) + t; first < n; first += step) {
        sum += first_add(input, n, first);
    }
    cache[t] = sum;
    __syncthreads();
    tree_above_warp<kReduceBlock>(cache, t);
    if (t < 32) {
        last_warp(cache, t);
    }
    if (t == 0) {
        partial[blockIdx.x] = cache[0];
    }
}

using Kernel = void (*)(const float*, float*, int);

// Passes of `kernel`, `per_block` elements a block, each into the workspace after the last,
// until one block writes the sum (the chapter's reduce_tree, for 256 or 512 a block).
void passes(Kernel kernel, const char* name, int per_block, const float* input, float* sum, int n, float* workspace) {
    const float* values = input;
    int count = n;
    float* next = workspace;
    for (;;) {
        const int blocks = ceil_div(count, per_block);
        float* out = blocks == 1 ? sum : next;
        kernel<<<blocks, kReduceBlock>>>(values, out, count);
        CUDA_CHECK_KERNEL(name);
        if (blocks == 1) {
            return;
        }
        values = out;
        count = blocks;
        next = out + blocks;
    }
}

// The depth of the passes: log2(per_block) levels (8, or 9 with the first add) per pass.
long long pass_depth(int n, int per_block, long long levels) {
    long long depth = 0;
    long long count = n;
    do {
        count = (count + per_block - 1) / per_block;
        depth += levels;
    } while (count > 1);
    return depth;
}

void strided_index(const float* input, float* sum, int n, float* workspace) {
    require_reduce_arguments("harris_strided_index", input, sum, n, workspace);
    passes(strided_index_kernel, "strided_index_kernel", kReduceBlock, input, sum, n, workspace);
}

long long tree_depth(int n) { return pass_depth(n, kReduceBlock, 8); }
long long pair_tree_depth(int n) { return pass_depth(n, 2 * kReduceBlock, 9); }

void first_add_during_load(const float* input, float* sum, int n, float* workspace) {
    require_reduce_arguments("harris_first_add_during_load", input, sum, n, workspace);
    passes(first_add_kernel, "first_add_kernel", 2 * kReduceBlock, input, sum, n, workspace);
}

void unrolled_last_warp(const float* input, float* sum, int n, float* workspace) {
    require_reduce_arguments("harris_unrolled_last_warp", input, sum, n, workspace);
    passes(unrolled_kernel<0>, "unrolled_kernel<0>", 2 * kReduceBlock, input, sum, n, workspace);
}

void completely_unrolled(const float* input, float* sum, int n, float* workspace) {
    require_reduce_arguments("harris_completely_unrolled", input, sum, n, workspace);
    passes(unrolled_kernel<kReduceBlock>, "unrolled_kernel<256>", 2 * kReduceBlock, input, sum, n, workspace);
}

// Harris 7's grid: as many blocks as pairs of blocks' worth of elements, at most 6c's fixed
// kReduceWarpMaxBlocks, so that 6c and Harris 7 differ only in how they load and finish.
int many_per_thread_blocks(int n) {
    const int blocks = ceil_div(n, 2 * kReduceBlock);
    return blocks < kReduceWarpMaxBlocks ? blocks : kReduceWarpMaxBlocks;
}

void many_elements_per_thread(const float* input, float* sum, int n, float* workspace) {
    require_reduce_arguments("harris_many_elements_per_thread", input, sum, n, workspace);
    const int blocks = many_per_thread_blocks(n);
    many_per_thread_kernel<<<blocks, kReduceBlock>>>(input, blocks == 1 ? sum : workspace, n);
    CUDA_CHECK_KERNEL("many_per_thread_kernel");
    if (blocks > 1) {
        many_per_thread_kernel<<<1, kReduceBlock>>>(workspace, sum, blocks);
        CUDA_CHECK_KERNEL("many_per_thread_kernel");
    }
}

// A pass of Harris 7 over n elements with `blocks` blocks: each thread's chain (a pair's
// addition, then one addition per round into its sum), then the tree's 8 levels.
long long many_per_thread_pass_depth(long long n, long long blocks) {
    const long long per_round = 2LL * kReduceBlock * blocks;
    const long long rounds = (n + per_round - 1) / per_round;
    return 1 + rounds + 8;
}

long long many_per_thread_depth(int n) {
    const int blocks = many_per_thread_blocks(n);
    return many_per_thread_pass_depth(n, blocks) + (blocks > 1 ? many_per_thread_pass_depth(blocks, 1) : 0);
}

}  // namespace

const HarrisStep kHarrisStridedIndex{"strided index (Harris 2)", strided_index, tree_depth};
const HarrisStep kHarrisFirstAddDuringLoad{"first add during load (Harris 4)", first_add_during_load, pair_tree_depth};
const HarrisStep kHarrisUnrolledLastWarp{"unrolled last warp (Harris 5)", unrolled_last_warp, pair_tree_depth};
const HarrisStep kHarrisCompletelyUnrolled{"completely unrolled (Harris 6)", completely_unrolled, pair_tree_depth};
const HarrisStep kHarrisManyElementsPerThread{"many elements per thread (Harris 7)", many_elements_per_thread,
                                              many_per_thread_depth};

}  // namespace tutorial::benchmark
