/// @file reduction.h
/// @brief Chapter 6's API: the sum of a float array, by a tree in shared memory with
/// interleaved addressing, the same tree with sequential addressing, and a kernel that
/// adds while it loads (float4), finishes each warp with shuffles and lets its last
/// block add the blocks' sums.
///
/// Shared by your chapters/06-reduction/reduction.cu, the reference solution, the tests
/// and the benchmark. You do not need to edit it.
///
/// Every variant is deterministic: its blocks write partial sums to a workspace, which a
/// later launch (the trees) or the last block to finish (6c) adds up in a fixed order,
/// so the same input gives the same sum, bit for bit, on every run on one GPU (an
/// atomicAdd per block would add them in whatever order the blocks finish).
#pragma once

#include "launch_config.h"

#include <cstddef>

/// @brief Threads per block, for every reduction kernel: 8 warps.
constexpr int kReduceBlock = 256;

/// @brief The most blocks reduce_warp() launches, and so the most partial sums it keeps
/// in the workspace: more than two waves of any GPU of this course (an H100 or H200
/// holds 132 × 6 of its blocks at once).
constexpr int kReduceWarpMaxBlocks = 2048;

/// @brief Blocks reduce_warp() launches for @p n elements: one per 4 · kReduceBlock
/// elements (each thread loads at least one float4), at most two waves of the GPU (twice
/// its multiprocessors times the blocks of reduce_warp_kernel that fit on one, as the
/// occupancy API says) and at most kReduceWarpMaxBlocks; with more elements, each thread
/// loops over several float4s. The grid depends on the GPU, so the sum's last bits may
/// differ between GPUs; on one GPU they are the same on every run.
int reduce_warp_blocks(int n);

/// @brief Floats of workspace every reduction needs for @p n elements: room for the
/// partial sums of all but the last pass of the tree reductions, which need more
/// than reduce_warp()'s one per block.
std::size_t reduce_workspace_floats(int n);

/// @brief The longest chain of roundings any one element goes through in
/// reduce_interleaved() and reduce_sequential() for @p n elements: log₂ kReduceBlock = 8
/// levels of the tree per pass, and one pass per factor of kReduceBlock.
///
/// The tests and the benchmark allow an error of γ_depth · Σ|xᵢ| (Higham's bound for
/// any summation whose terms each go through at most `depth` additions).
inline long long reduce_tree_depth(int n) {
    long long depth = 0;
    long long count = n;
    do {
        count = (count + kReduceBlock - 1) / kReduceBlock;
        depth += 8;
    } while (count > 1);
    return depth;
}

/// @brief The same for one pass of reduce_warp()'s kernel over @p n elements with
/// @p blocks blocks: a thread adds each float4 as (x + y) + (z + w) to its running sum,
/// after a head element and before a tail element, so a term goes through at most
/// rounds + 3 additions; then 5 shuffle levels in each warp and 5 more over the warps' sums.
inline long long reduce_warp_pass_depth(long long n, long long blocks) {
    const long long float4s = (n + 3) / 4;
    const long long threads = blocks * kReduceBlock;
    const long long rounds = (float4s + threads - 1) / threads;
    return rounds + 3 + 5 + 5;
}

/// @brief The same for the whole of reduce_warp(): its blocks' pass over the input, then
/// the last block's over their partial sums, each thread adding every kReduceBlock-th one
/// in a chain before block_sum's 10 shuffle levels.
inline long long reduce_warp_depth(int n) {
    const long long blocks = reduce_warp_blocks(n);
    return reduce_warp_pass_depth(n, blocks) + (blocks + kReduceBlock - 1) / kReduceBlock + 10;
}

/// @brief *sum = input[0] + … + input[n − 1], by a tree in shared memory with
/// interleaved addressing: in step s, thread t adds element t + s to element t when t is
/// a multiple of 2s.
///
/// Each block of kReduceBlock threads reduces kReduceBlock elements to one partial sum;
/// the same kernel then reduces the partial sums, pass after pass, until one is left.
/// @param input     device pointer to @p n floats; any float-aligned address
/// @param sum       device pointer to one float, overwritten
/// @param n         elements, ≥ 1
/// @param workspace device pointer to reduce_workspace_floats(n) floats, overwritten;
///                  overlapping neither @p input nor @p sum
/// @throws std::invalid_argument naming the argument for n < 1 or a null pointer
/// @throws tutorial::CudaError if a launch or a kernel fails
void reduce_interleaved(const float* input, float* sum, int n, float* workspace);

/// @brief The same tree with sequential addressing: in step s, threads t < s add
/// element t + s to element t. Same arguments, result and errors as reduce_interleaved().
void reduce_sequential(const float* input, float* sum, int n, float* workspace);

/// @brief The fast one: reduce_warp_blocks(n) blocks each add up a grid-stride share
/// of the input while loading it (as float4 where the address allows), finish each
/// warp with __shfl_down_sync and join the warps through shared memory; the last block
/// to finish adds the partial sums, in the same launch. The blocks count themselves in
/// one counter of the program, so two calls must not run at the same time (on two
/// streams). Same arguments, result and errors as reduce_interleaved().
void reduce_warp(const float* input, float* sum, int n, float* workspace);
