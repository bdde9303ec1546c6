/// @file moving_average.h
/// @brief Chapter 4's API: the simple moving average of a float array, from global
/// memory, through the read-only data cache, and from a dynamically sized
/// `extern __shared__` window.
///
/// Shared by your chapters/04-moving-average/moving_average.cu, the reference solution,
/// the tests and the benchmark. You do not need to edit it.
///
/// All three compute output[i] = (input[i] + … + input[i + window − 1]) / window for
/// i = 0 … size − window: size − window + 1 outputs.
#pragma once

#include "launch_config.h"

#include <cstddef>

/// @brief Threads per block, for all three kernels.
constexpr int kMovingAverageBlock = 256;

/// @brief The most dynamic shared memory a block may use without opting in: 48 KB.
///
/// Past it, a kernel must be opted in with cudaFuncSetAttribute, up to the GPU's own
/// limit (cudaDevAttrMaxSharedMemoryPerBlockOptin: from 64 KB on Turing to 227 KB on Hopper).
constexpr std::size_t kSharedMemoryWithoutOptIn = 48 * 1024;

/// @brief The launch all three kernels use: kMovingAverageBlock threads per block, one
/// thread per output, enough blocks for the size − window + 1 outputs.
tutorial::LaunchConfig moving_average_launch_config(int size, int window);

/// @brief Bytes of dynamic shared memory moving_average_shared() gives each block: room
/// for the block's window of the input, (kMovingAverageBlock + window − 1) floats.
std::size_t moving_average_shared_bytes(int window);

/// @brief Moving average in which each thread reads its window from global memory.
/// @param input  device pointer to @p size floats
/// @param output device pointer to size − window + 1 floats, overwritten; not @p input
/// @param size   elements of the input, ≥ 1
/// @param window elements averaged per output, 1 ≤ window ≤ size
/// @throws std::invalid_argument naming the argument for a size < 1, a window outside
///         1..size or a null pointer
/// @throws tutorial::CudaError if the launch or the kernel fails
void moving_average_naive(const float* input, float* output, int size, int window);

/// @brief The same, with the input marked `const __restrict__` so that it may be read
/// through the read-only data cache. Same arguments, result and errors.
void moving_average_readonly(const float* input, float* output, int size, int window);

/// @brief The same, with each block staging its window of the input, halo included,
/// in dynamically sized shared memory. Same arguments and result.
///
/// Above kSharedMemoryWithoutOptIn bytes (a window above 12033 floats) it opts the
/// kernel in to more, up to the GPU's limit (cudaDevAttrMaxSharedMemoryPerBlockOptin).
/// @throws std::invalid_argument as the others, and also when the window needs more
///         shared memory than the GPU allows a block; the message gives both numbers
/// @throws tutorial::CudaError if the launch or the kernel fails
void moving_average_shared(const float* input, float* output, int size, int window);

/// @brief 4d (going further): outputs per thread of moving_average_prefix(); a block of
/// kMovingAverageBlock threads computes kMovingAverageBlock × kPrefixItems outputs.
constexpr int kPrefixItems = 8;

/// @brief 4d: the same moving average with O(1) work per output, from prefix sums.
///
/// With P(x) = input[first] + … + input[x − 1] for the block's first output `first`,
/// output j is (P(j + window) − P(j)) / window. Each block computes P, in double, over its
/// own kMovingAverageBlock × kPrefixItems inputs and over as many starting `window` further
/// on, with a block-wide scan in shared memory; the sum of the window in between,
/// P(first + window), comes from the first scan when the window is no longer than the
/// block's span, else from one block-wide sum. Prefix sums in float would lose the small
/// window sum in the rounding of the large prefixes; in double that error stays below
/// 2⁻⁴⁰ of the inputs' magnitude, far under a float's rounding (the lesson derives it).
///
/// Any window from 1 to size, no extra shared memory for long windows. Same arguments,
/// result and errors as moving_average_naive().
void moving_average_prefix(const float* input, float* output, int size, int window);

/// @brief 4e (going further): outputs per block of moving_average_stream(), which walks them
/// in chunks of kMovingAverageBlock × kPrefixItems inputs. A block reads its outputs' inputs
/// and window − 1 more, so the longer the span, the less of the input is read twice.
constexpr int kStreamSpan = 16 * kMovingAverageBlock * kPrefixItems;  // 32768

/// @brief 4e: the longest window moving_average_stream() computes in one pass; a longer one
/// is handed to moving_average_prefix(). The prefix sums of the last window + chunk inputs
/// stay in shared memory: 4096 doubles (with padding, 36 KB) hold them for this window.
constexpr int kStreamMaxWindow = kMovingAverageBlock * kPrefixItems;  // 2048

/// @brief 4e (going further): the moving average in one pass, each input read from global
/// memory once (and window − 1 per kStreamSpan outputs twice).
///
/// A block computes kStreamSpan consecutive outputs. It reads its inputs a chunk of 2048 at a
/// time, each thread 8 consecutive ones, and scans them across the block in double, carrying
/// the total of the chunks before: P(x), the sum of the block's inputs before x. Every P(x)
/// goes into a ring in shared memory. Once a chunk is scanned, every window of the chunk of
/// outputs before it ends in the ring: output j is (P(j + window) − P(j)) / window, both from
/// the ring, and each thread stores 8 consecutive outputs (two float4 stores when the output
/// array starts on 16 bytes). Windows longer than kStreamMaxWindow go to
/// moving_average_prefix(). Same arguments, result and errors as moving_average_naive().
void moving_average_stream(const float* input, float* output, int size, int window);
