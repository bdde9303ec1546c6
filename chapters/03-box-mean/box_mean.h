/// @file box_mean.h
/// @brief Chapter 3's API: the box mean of an 8-bit image, from global memory and from
/// a shared-memory tile with a halo.
///
/// Shared by your chapters/03-box-mean/box_mean.cu, the reference solution, the tests
/// and the benchmark. You do not need to edit it.
///
/// Images are row-major, one unsigned char per pixel, with no padding between rows:
/// pixel (x, y) of a width-wide image is at index y * width + x.
#pragma once

#include "launch_config.h"

/// @brief The largest radius the kernels support: a 17×17 box.
constexpr int kMaxBoxRadius = 8;

/// @brief Threads per block along x (the image's columns): one warp per row of the block,
/// so a warp reads and writes 32 consecutive pixels.
constexpr int kBoxBlockX = 32;

/// @brief Threads per block along y (the image's rows): 32 × 8 = 256 threads.
///
/// Not more: an SM holds twice as many 256-thread blocks as 512-thread ones, so one
/// block's tile load overlaps another's sums, and each `__syncthreads()` holds back fewer
/// threads. On an H200 that beat 32 × 16 and 32 × 32 despite the larger halo share (the
/// lesson, README.md, has the numbers).
constexpr int kBoxBlockY = 8;

/// @brief The launch both box-mean kernels use: kBoxBlockX × kBoxBlockY blocks, one
/// thread per pixel, x along the columns (grid.x covers the width), y along the rows.
tutorial::LaunchConfig box_mean_launch_config(int width, int height);

/// @brief Box mean reading every neighbour straight from global memory.
///
/// output(x, y) is the mean of the (2·radius+1)² pixels around (x, y), rounded to
/// nearest, with neighbours outside the image clamped to the nearest edge pixel; it
/// equals tutorial::box_mean_reference exactly.
/// @param input  device pointer to width × height pixels
/// @param output device pointer to width × height pixels, overwritten; not @p input
/// @param width  columns, ≥ 1
/// @param height rows, ≥ 1
/// @param radius 0 (a copy) to kMaxBoxRadius; 1 is a 3×3 box, 2 a 5×5 box
/// @throws std::invalid_argument naming the argument for a size < 1, an image of more
///         than 2³¹ − 1 pixels, a radius outside 0..kMaxBoxRadius or a null pointer
/// @throws tutorial::CudaError if the launch or the kernel fails
void box_mean_global(const unsigned char* input, unsigned char* output, int width, int height, int radius);

/// @brief Box mean that first stages each block's tile of the image, halo included, in
/// shared memory. Same arguments, result and errors as box_mean_global().
void box_mean_shared(const unsigned char* input, unsigned char* output, int width, int height, int radius);

/// @name 3c (going further): thread coarsening
/// Each thread of a kBoxBlockX × kBoxBlockY block computes kCoarsenX neighbouring pixels
/// of kCoarsenRows rows, so a block covers a (kBoxBlockX·kCoarsenX) × (kBoxBlockY·kCoarsenRows)
/// tile of the output.
///@{
constexpr int kCoarsenX = 16;    ///< pixels per thread along a row: one 16-byte load and store
constexpr int kCoarsenRows = 8;  ///< rows per thread, summed with a sliding window
///@}

/// @brief The launch box_mean_coarsened() uses: kBoxBlockX × kBoxBlockY threads, each
/// computing kCoarsenX × kCoarsenRows pixels; x along the columns.
tutorial::LaunchConfig box_mean_coarsened_launch_config(int width, int height);

/// @brief 3c: box mean with thread coarsening. The block stages its tile, halo included,
/// in shared memory with 4-byte loads where the rows allow it; each thread sums rows of
/// its kCoarsenX columns, slides a (2·radius+1)-row window down its kCoarsenRows rows,
/// and stores its kCoarsenX pixels of a row with one 4-byte store where it can.
/// Same arguments, result (exact, borders included) and errors as box_mean_global().
void box_mean_coarsened(const unsigned char* input, unsigned char* output, int width, int height, int radius);

/// @name 3d (going further): rows streamed through a ring of shared-memory buffers
/// A block of kRingThreads threads, each computing kCoarsenX neighbouring pixels of a row,
/// owns a strip kRingStripWidth pixels wide and kRingRows output rows high and walks down
/// it, one output row at a time. Its input rows wait in a ring of 2·radius + 2 +
/// kRingPrefetch shared-memory rows, refilled by asynchronous copies kRingPrefetch rows ahead
/// of the row it computes.
///@{
constexpr int kRingThreads = 64;                            ///< threads per block, along the row
constexpr int kRingStripWidth = kRingThreads * kCoarsenX;   ///< output columns per block: 1024
constexpr int kRingRows = 64;                               ///< output rows per block
constexpr int kRingPrefetch = 4;                            ///< rows in flight beyond the one entering
///@}

/// @brief The ring's geometry for radius @p RADIUS, shared by 3d's kernel, its copies and the
/// benchmark's copy-only row: a ring row is the strip and a halo of whole 16-byte chunks on
/// either side, kept ROW_STRIDE bytes apart in shared memory.
template <int RADIUS, int PREFETCH = kRingPrefetch>
struct RingGeometry {
    static constexpr int COLS = kCoarsenX;  ///< pixels per thread along a row: one 16-byte chunk
    static constexpr int HALO_X = (RADIUS + COLS - 1) / COLS * COLS;  ///< R rounded up to whole chunks
    static constexpr int ROW_W = kRingStripWidth + 2 * HALO_X;        ///< bytes of one ring row
    static constexpr int ROW_CHUNKS = ROW_W / COLS;  ///< 16-byte chunks of one ring row
    static constexpr int COPIES = (ROW_CHUNKS + kRingThreads - 1) / kRingThreads;  ///< chunks a thread fills, at most
    /// A ring row starts LEAD bytes into its ROW_STRIDE bytes of shared memory, so that the
    /// threads' own chunks (from HALO_X on) start on a 128-byte line in every ring row.
    static constexpr int LEAD = (128 - HALO_X % 128) % 128;
    /// The shared-memory bytes a ring row takes: whole 128-byte lines.
    static constexpr int ROW_STRIDE = (LEAD + ROW_W + 127) / 128 * 128;
    /// A row is read by the output rows i - 1 (leaving) to i + 2R (entering): 2R + 2 rows are
    /// live while row i is computed, PREFETCH rows are in flight below them.
    static constexpr int RING = 2 * RADIUS + 2 + PREFETCH;
    static_assert(PREFETCH >= 1 && PREFETCH <= 9, "__pipeline_wait_prior waits for at most 8 newer batches");
    static_assert(RING * ROW_STRIDE <= 48 * 1024, "static shared memory is limited to 48 KB per block");
};

/// @brief The launch box_mean_ring() uses: kRingThreads threads along x, and a
/// one-dimensional grid of ceil(width / kRingStripWidth) × ceil(height / kRingRows)
/// blocks, block b taking strip b % strips and segment b / strips (one dimension, so that
/// any image of up to 2³¹ − 1 pixels fits the grid).
tutorial::LaunchConfig box_mean_ring_launch_config(int width, int height);

/// @brief 3d: box mean with the rows streamed through a ring of shared-memory buffers.
/// cp.async copies each row of the block's strip, halo included, into the ring while the
/// rows above it are summed; the sums are 3c's (column sums sliding down, two to an int,
/// and box sums sliding along), and each thread stores its kCoarsenX pixels of a row with one 16-byte store
/// where the rows are aligned. Same arguments, result (exact, borders included) and errors
/// as box_mean_global().
void box_mean_ring(const unsigned char* input, unsigned char* output, int width, int height, int radius);
