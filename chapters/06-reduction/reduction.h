/// @file reduction.h
/// @brief Chapter 6's API: the sum of a float array, by a tree in shared memory with
/// interleaved addressing, the same tree with sequential addressing, and a kernel that
/// adds while it loads (float4), finishes each warp with shuffles and combines the
/// blocks in a second pass.
///
/// Shared by your chapters/06-reduction/reduction.cu, the reference solution, the tests
/// and the benchmark. You do not need to edit it.
///
/// Every variant is deterministic: its blocks write partial sums to a workspace and a
/// later launch adds them up in a fixed order, so the same input gives the same sum,
/// bit for bit, on every run (an atomicAdd per block would add them in whatever order
/// the blocks finish).
#pragma once

#include "launch_config.h"

#include <cstddef>

/// @brief Threads per block, for every reduction kernel: 8 warps.
constexpr int kReduceBlock = 256;

/// @brief The most blocks reduce_warp() launches in its first pass. Enough to fill
/// any GPU of this course several times over (an H200 holds 132 × 8 such blocks at
/// once); fixed, not read from the GPU, so that the order of the additions, and so the
/// sum's last bits, are the same on every GPU.
constexpr int kReduceWarpMaxBlocks = 1024;

/// @brief Blocks in reduce_warp()'s first pass for @p n elements: one per
/// 4 · kReduceBlock elements (each thread loads at least one float4), at most
/// kReduceWarpMaxBlocks; with more elements, each thread loops over several float4s.
int reduce_warp_blocks(int n);

/// @brief Floats of workspace every reduction needs for @p n elements: room for the
/// partial sums of all but the last pass of the tree reductions, which need more
/// than reduce_warp()'s one per block.
std::size_t reduce_workspace_floats(int n);

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
/// warp with __shfl_down_sync and join the warps through shared memory; one more block
/// adds the partial sums. Same arguments, result and errors as reduce_interleaved().
void reduce_warp(const float* input, float* sum, int n, float* workspace);
