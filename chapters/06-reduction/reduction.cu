// Chapter 6: the sum of n floats, three ways: a shared-memory tree with interleaved
// addressing (6a), the same tree with sequential addressing (6b), and a kernel that adds
// while it loads, then finishes with warp shuffles (6c).
//
// Read README.md in this folder first. Then work through the TODO(chapter6) markers
// below, top to bottom, and run `make chapter6 test` after each one.
//
// Every kernel writes one partial sum per block. The trees' partial sums are added by
// later launches; 6c's by the last of its blocks to finish, in the same launch. Either
// way they are added in a fixed order, so the result is the same, bit for bit, on every
// run. The host code that chains the passes is written, at the end of the file.
#include "reduction.h"

#include "cuda_check.h"
#include "reduction_reference.h"
#include "validate.h"

#include <cstdint>

// 6a: each thread loads one element into shared memory; then, in steps s = 1, 2, 4, ...,
// thread t adds element t + s to element t if t is a multiple of 2s. The tree is right,
// but the threads that work are scattered: in step s only every (2s)-th thread of a
// warp adds, and the warp takes as long as if all 32 did.
__global__ void reduce_interleaved_kernel(const float* input, float* partial, int n) {
    // TODO(chapter6): the block's cache, kReduceBlock floats in shared memory, and this
    //   thread's element i, one per thread of the grid (a long long: near
    //   n = 2^31 the last block's i passes INT_MAX). Load the thread's element into its
    //   place in the cache, or 0 past the end of the input: a zero adds nothing. Then wait
    //   for the whole block.

    // TODO(chapter6): the tree: for s = 1, 2, 4, ... while s < blockDim.x, thread t adds
    //   the element s further on to its own if t is a multiple of 2s. Every step reads what the last
    //   one wrote: a barrier after each step, outside the if (all threads must reach it).

    // TODO(chapter6): thread 0 writes the block's sum, now in the cache's first element,
    //   to the block's place in partial.
}

// 6b: the same tree, with the working threads packed at the front: in step s (half
// the block, then a quarter, ...), threads t < s add element t + s to element t. Whole
// warps work or whole warps skip until s < 32, and the 32 threads of a warp read 32
// consecutive words: 32 different banks.
__global__ void reduce_sequential_kernel(const float* input, float* partial, int n) {
    // TODO(chapter6): load the cache as in 6a.

    // TODO(chapter6): the tree with sequential addressing: for s = blockDim.x / 2, then
    //   half that, down to 1, the first s threads add the element s further on to their
    //   own; a barrier after each step. Thread 0 writes the block's sum, as in 6a.
}

// 6c, step 1: the sum of the 32 values of a warp's threads, in lane 0. Each
// __shfl_down_sync reads the value of the lane `offset` places further; after offsets
// 16, 8, 4, 2, 1, lane 0 holds the whole warp's sum. No shared memory, no barrier: the
// 32 lanes exchange registers, and the mask says all 32 take part.
__device__ float warp_sum(float value) {
    // TODO(chapter6): for offset = 16, 8, 4, 2, 1 (half a warp's 32 lanes, halved each
    //   time), add the value of the lane `offset` places further (__shfl_down_sync, all
    //   32 lanes taking part). Lane 0 then holds the sum of all 32; return value.
    return value;
}

// 6c, step 2: the sum of the block's values, in thread 0. Each warp sums its own; lane
// 0 of each writes it to shared memory; after the barrier, the first warp sums those 8.
__device__ float block_sum(float value) {
    // TODO(chapter6): `warp_sums` in shared memory, a float per warp of the block. This
    //   thread's `lane` in its warp and the number of its `warp` in the block.

    // TODO(chapter6): sum the warp's values (warp_sum); lane 0 of each warp stores the
    //   warp's sum in its slot of warp_sums. A barrier: the first warp is about to read all
    //   of them.

    // TODO(chapter6): in the first warp only, each lane takes one warp's sum from
    //   warp_sums (0 for the lanes past the block's warps), and warp_sum adds them. Thread 0
    //   returns the block's sum.
    return value;
}

// The blocks of reduce_warp_kernel that have finished their partial sum in the launch
// running now. atomicInc wraps it back to 0 when the last block counts itself, so it is
// 0 between launches (the host sets it back after a launch that stopped part-way).
// One counter for the program: two reduce_warp calls must not run at the same time.
__device__ unsigned int reduce_warp_finished_blocks = 0;

// 6c, written for you: the partial sums of all the blocks, added in the launch that
// wrote them. Thread 0 of each block has just written partial[blockIdx.x]. It makes that
// store visible to the whole GPU (__threadfence) before it counts the block as finished,
// so the block that counts last knows every partial sum is in memory. That block alone
// adds them, each thread a fixed strided share, then block_sum; the order of the
// additions is the same whichever block comes last.
__device__ void add_partial_sums_in_last_block(const float* partial, float* sum) {
    __shared__ bool last;
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicInc(&reduce_warp_finished_blocks, gridDim.x - 1) == gridDim.x - 1;
    }
    // `last` for every thread; and the first warp's reads of warp_sums (block_sum) are
    // over before block_sum runs again below.
    __syncthreads();
    if (!last) {
        return;
    }
    // The other side of the writers' fence: nothing below is read before the count was.
    __threadfence();
    float value = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
        value += __ldcg(&partial[b]);  // from L2: other SMs wrote them, this SM's L1 may not know
    }
    value = block_sum(value);
    if (threadIdx.x == 0) {
        *sum = value;
    }
}

// 6c: a grid-stride loop adds while it loads. The first `head` elements, before the
// first 16-byte boundary, are loaded one by one; then float4 loads (one 16-byte load
// instruction for 4 floats) take the grid's threads through the aligned middle; the
// last (n - head) % 4 elements are loaded one by one again. The block's sum goes to
// partial[blockIdx.x]; the last block to finish adds them all into *sum.
__global__ void reduce_warp_kernel(const float* input, float* partial, float* sum, int n, int head) {
    // TODO(chapter6): this thread's index in the whole grid, `thread`, and the grid's
    //   thread count, `threads` (the loop's stride), both long long. Start the thread's
    //   sum, `thread_sum`, with the head: the first threads of the grid take one head
    //   element each, the others 0.

    // TODO(chapter6): the float4 loop. After the head, the input is 16-byte aligned: view
    //   it as float4s (how many whole ones are left?). Walk them with a stride of the whole
    //   grid, from this thread's index; load each float4 once and add its four floats, in
    //   pairs, to the sum.

    // TODO(chapter6): the tail, the last (n - head) % 4 elements, after the last whole
    //   float4: the first threads of the grid add one each.

    // TODO(chapter6): the block's sum of the threads' sums (block_sum); thread 0 writes it
    //   to the block's place in partial.
    add_partial_sums_in_last_block(partial, sum);
}

int reduce_warp_blocks(int n) {
    // The blocks of reduce_warp_kernel the GPU holds at once, asked once: its
    // multiprocessors times the blocks that fit on one (registers permitting).
    static const int resident = [] {
        int device = 0, multiprocessors = 0, threads_per_multiprocessor = 0, per_multiprocessor = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_multiprocessor, cudaDevAttrMaxThreadsPerMultiProcessor, device));
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, reduce_warp_kernel, kReduceBlock, 0) !=
            cudaSuccess) {
            // The CPU backend cannot know the kernel's registers without nvcc: take as many
            // blocks as the SM has threads for. Only the grid's size depends on it.
            (void)cudaGetLastError();
            per_multiprocessor = threads_per_multiprocessor / kReduceBlock;
        }
        return multiprocessors * per_multiprocessor;
    }();
    // Two whole waves: every block has the same share, so the second wave starts as the
    // first ends and the two end together, with no partial last wave leaving most of
    // the GPU idle while its few blocks finish.
    const int full = 2 * resident < kReduceWarpMaxBlocks ? 2 * resident : kReduceWarpMaxBlocks;
    const int blocks = tutorial::ceil_div(n, 4 * kReduceBlock);
    return blocks < full ? blocks : full;
}

std::size_t reduce_workspace_floats(int n) {
    // The tree writes ceil(n / 256) partial sums, then ceil of that / 256, ..., until
    // one block is left, which writes the sum itself.
    std::size_t tree = 0;
    for (long long count = n; count > 1;) {
        count = (count + kReduceBlock - 1) / kReduceBlock;
        tree += count > 1 ? static_cast<std::size_t>(count) : 0;
    }
    const auto warp = static_cast<std::size_t>(reduce_warp_blocks(n));
    return tree > warp ? tree : warp;
}

namespace {

using TreeKernel = void (*)(const float*, float*, int);

// The tree reductions, pass after pass: each reduces `count` values to one per block,
// into the workspace after the previous pass's values, until a single block is left,
// which writes to `sum`. Every pass has its own region, so no pass overwrites values
// another block of it still reads.
void reduce_tree(TreeKernel kernel, const char* kernel_name, const float* input, float* sum, int n,
                 float* workspace) {
    const float* values = input;
    int count = n;
    float* next = workspace;
    for (;;) {
        const int blocks = tutorial::ceil_div(count, kReduceBlock);
        float* out = blocks == 1 ? sum : next;
        kernel<<<blocks, kReduceBlock>>>(values, out, count);
        CUDA_CHECK_KERNEL(kernel_name);
        if (blocks == 1) {
            return;
        }
        values = out;
        count = blocks;
        next = out + blocks;
    }
}

// Elements before the first 16-byte boundary at or after `values`: 0 to 3, at most count.
int unaligned_head(const float* values, int count) {
    const auto misaligned_floats = static_cast<int>((reinterpret_cast<std::uintptr_t>(values) % 16) / sizeof(float));
    const int head = (4 - misaligned_floats) % 4;
    return head < count ? head : count;
}

}  // namespace

void reduce_interleaved(const float* input, float* sum, int n, float* workspace) {
    tutorial::require_reduce_arguments("reduce_interleaved", input, sum, n, workspace);
    reduce_tree(reduce_interleaved_kernel, "reduce_interleaved_kernel", input, sum, n, workspace);
}

void reduce_sequential(const float* input, float* sum, int n, float* workspace) {
    tutorial::require_reduce_arguments("reduce_sequential", input, sum, n, workspace);
    reduce_tree(reduce_sequential_kernel, "reduce_sequential_kernel", input, sum, n, workspace);
}

namespace {

__global__ void reset_finished_blocks_kernel() { reduce_warp_finished_blocks = 0; }

// Whether the last launch of reduce_warp_kernel may have stopped part-way (a crash, the CPU
// backend's time limit): then it left the count of finished blocks where it stopped, and
// the next call must set it back to 0 first. (After a crash on a GPU nothing more runs in
// the process, and that reset fails too.)
bool finished_blocks_may_be_stale = false;

}  // namespace

void reduce_warp(const float* input, float* sum, int n, float* workspace) {
    tutorial::require_reduce_arguments("reduce_warp", input, sum, n, workspace);
    if (finished_blocks_may_be_stale) {
        reset_finished_blocks_kernel<<<1, 1>>>();
        CUDA_CHECK_KERNEL("reset_finished_blocks_kernel");
    }
    // One launch: a partial sum per block in the workspace, and the last block to finish
    // adds them into *sum. Until its check has passed, the count may be left part-way.
    finished_blocks_may_be_stale = true;
    reduce_warp_kernel<<<reduce_warp_blocks(n), kReduceBlock>>>(input, workspace, sum, n, unaligned_head(input, n));
    CUDA_CHECK_KERNEL("reduce_warp_kernel");
    finished_blocks_may_be_stale = false;
}
