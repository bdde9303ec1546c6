/// @file harris_reduction.h
/// @brief Benchmark rows of the project's own (not the student's): the intermediate steps of
/// Mark Harris's "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007) that the chapter's
/// steps skip, so that the benchmark can show his cumulative table beside 6a, 6b and 6c.
/// His kernel 1 (interleaved addressing) is 6a and his kernel 3 (sequential addressing) is 6b;
/// his kernels 2, 4, 5, 6 and 7 are here, each one change on the step before it. Linked into
/// the benchmark only.
///
/// Each takes the arguments of reduce_interleaved() and is correct for any n ≥ 1: its blocks
/// write partial sums to the workspace (at most reduce_workspace_floats(n) floats), and
/// later passes add them up in a fixed order, as the chapter's kernels do.
#pragma once

namespace tutorial::benchmark {

/// @brief One of Harris's steps: the benchmark's row, the sum, and the longest chain of
/// additions any element goes through for n elements (the error bound's depth).
struct HarrisStep {
    /// @brief The benchmark's row, "strided index (Harris 2)" and so on.
    const char* variant;
    /// @brief *sum = input[0] + … + input[n − 1]; the arguments of reduce_interleaved().
    void (*reduce)(const float* input, float* sum, int n, float* workspace);
    /// @brief The longest chain of additions an element goes through for @p n elements.
    long long (*depth)(int n);
};

/// @brief Harris 2: interleaved addressing with a strided index. Thread t adds at element
/// 2·s·t, so the adding threads are packed at the front (no divergence while 32 or more add),
/// but a warp's shared-memory accesses are 2s words apart: 2- to 16-way bank conflicts.
extern const HarrisStep kHarrisStridedIndex;

/// @brief Harris 4: 6b's tree, each thread adding two elements as it loads them: half the
/// blocks, and no thread idle in the tree's first step.
extern const HarrisStep kHarrisFirstAddDuringLoad;

/// @brief Harris 5: Harris 4 with the last six steps (s = 32 … 1) run by the first warp alone,
/// unrolled, with __syncwarp() in place of __syncthreads() (Harris relied on the warp running
/// in lockstep, which no GPU since Volta promises).
extern const HarrisStep kHarrisUnrolledLastWarp;

/// @brief Harris 6: Harris 5 with the block size a compile-time constant, so the whole tree
/// is unrolled: no loop counter, no loop test.
extern const HarrisStep kHarrisCompletelyUnrolled;

/// @brief Harris 7: Harris 6 with a fixed grid of kReduceWarpMaxBlocks blocks whose threads
/// each add many pairs of elements in a register (a grid-stride loop) before the tree; one
/// block then adds the partial sums.
extern const HarrisStep kHarrisManyElementsPerThread;

}  // namespace tutorial::benchmark
