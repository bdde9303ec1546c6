// Chapter 3: the box mean of an 8-bit image, first from global memory (3a), then from a
// shared-memory tile with a halo (3b).
//
// Read README.md in this folder first. Then work through the TODO(chapter3) markers
// below, top to bottom, and run `make chapter3 test` after each one.
//
// Output pixel (x, y) is the mean of the (2R+1) x (2R+1) pixels around it: summed in an
// int, rounded to nearest with (sum + area/2) / area, and with neighbours outside the
// image clamped to the nearest edge pixel. Images are row-major: pixel (x, y) is at
// index y * width + x.
#include "box_mean.h"

#include "cuda_check.h"
#include "box_mean_reference.h"

#include <cstdint>

// The radius is a template parameter, like chapter 2's TILE: the compiler unrolls the
// loops over the box, and RADIUS sizes the shared tile of 3b.

// 3a: one thread per output pixel, reading its (2R+1)^2 neighbours from global memory.
template <int RADIUS>
__global__ void box_mean_global_kernel(const unsigned char* input, unsigned char* output, int width, int height) {
    // TODO(chapter3): this thread's pixel (x, y), x along the columns as in chapter 1, and
    //   an early return for threads outside the image.

    // TODO(chapter3): sum the pixels (x + dx, y + dy) for dx and dy from -RADIUS to RADIUS
    //   into an int. Clamp each neighbour's coordinates into the image first:
    //   min(max(y + dy, 0), height - 1), and the same for x with width.

    // TODO(chapter3): store the rounded mean, (sum + area / 2) / area with
    //   area = (2 * RADIUS + 1)^2, in output[y * width + x].
}

tutorial::LaunchConfig box_mean_launch_config(int width, int height) {
    // TODO(chapter3): a kBoxBlockX x kBoxBlockY block and a grid that covers all width
    //   columns (grid.x) and all height rows (grid.y), rounded up with tutorial::ceil_div.
    (void)width;
    (void)height;
    return tutorial::LaunchConfig{dim3(1, 1), dim3(1, 1)};
}

// 3b: the block first copies its tile of the image into shared memory: the
// kBoxBlockX x kBoxBlockY pixels it computes plus a halo of RADIUS pixels on every side.
template <int RADIUS>
__global__ void box_mean_shared_kernel(const unsigned char* input, unsigned char* output, int width, int height) {
    // TODO(chapter3): the tile's size, TILE_W = kBoxBlockX + 2 * RADIUS columns by
    //   TILE_H = kBoxBlockY + 2 * RADIUS rows (constexpr int), and the tile itself:
    //   __shared__ unsigned char tile[TILE_H][TILE_W].

    // TODO(chapter3): the image coordinates of tile[0][0]: RADIUS left of and RADIUS
    //   above the block's first output pixel (blockIdx.x * kBoxBlockX, blockIdx.y * kBoxBlockY).
    //   They are negative for the first blocks, so make them int: blockIdx is unsigned.

    // TODO(chapter3): load the tile. It has more pixels than the block has threads, so
    //   loop: number the block's threads 0 .. kBoxBlockX * kBoxBlockY - 1 row by row, and
    //   let thread t load tile pixels t, t + kBoxBlockX * kBoxBlockY, ... (pixel i is at
    //   row i / TILE_W, column i % TILE_W). Clamp the image coordinates as in 3a. Every
    //   thread loads, even one whose own output pixel is outside the image.

    // TODO(chapter3): wait until the whole tile is loaded: threads are about to read
    //   pixels other threads loaded.

    // TODO(chapter3): now return if this thread's pixel is outside the image. Otherwise
    //   sum its box from the tile: it starts at tile[threadIdx.y][threadIdx.x] and is
    //   2 * RADIUS + 1 pixels wide and high (no clamping: the load did it). Store the
    //   rounded mean as in 3a.
}

namespace {

enum class BoxMeanKernel { global, shared };

// Launches the kernel instance for the run-time radius: tries RADIUS = 0, 1, ...,
// kMaxBoxRadius in turn, since a template parameter must be known when compiling.
template <int RADIUS = 0>
void launch_box_mean(BoxMeanKernel kernel, const unsigned char* input, unsigned char* output, int width, int height,
                     int radius) {
    if constexpr (RADIUS <= kMaxBoxRadius) {
        if (radius != RADIUS) {
            launch_box_mean<RADIUS + 1>(kernel, input, output, width, height, radius);
            return;
        }
        const tutorial::LaunchConfig launch = box_mean_launch_config(width, height);
        if (kernel == BoxMeanKernel::global) {
            box_mean_global_kernel<RADIUS><<<launch.grid, launch.block>>>(input, output, width, height);
            CUDA_CHECK_KERNEL("box_mean_global_kernel");
        } else {
            box_mean_shared_kernel<RADIUS><<<launch.grid, launch.block>>>(input, output, width, height);
            CUDA_CHECK_KERNEL("box_mean_shared_kernel");
        }
    }
}

}  // namespace

void box_mean_global(const unsigned char* input, unsigned char* output, int width, int height, int radius) {
    tutorial::require_box_mean_arguments("box_mean_global", input, output, width, height, radius, kMaxBoxRadius);
    launch_box_mean(BoxMeanKernel::global, input, output, width, height, radius);
}

void box_mean_shared(const unsigned char* input, unsigned char* output, int width, int height, int radius) {
    tutorial::require_box_mean_arguments("box_mean_shared", input, output, width, height, radius, kMaxBoxRadius);
    launch_box_mean(BoxMeanKernel::shared, input, output, width, height, radius);
}

// ---- 3c (going further): thread coarsening ------------------------------------------
// A thread computes kCoarsenX pixels of kCoarsenRows rows. Its box sums share most of
// their terms: along a row, the sum for the next column adds one pixel and drops one;
// down a column, the sum for the next row adds one row sum and drops one. So each
// output pixel costs a few additions whatever the radius, instead of (2R+1)^2. All the
// sums are ints, so sliding them is exact: no rounding, as in 3a and 3b.

tutorial::LaunchConfig box_mean_coarsened_launch_config(int width, int height) {
    const dim3 block(kBoxBlockX, kBoxBlockY);
    const dim3 grid(tutorial::ceil_div(width, kBoxBlockX * kCoarsenX),
                    tutorial::ceil_div(height, kBoxBlockY * kCoarsenRows));
    return tutorial::LaunchConfig{grid, block};
}

// WORDS: whether 4-byte words may be loaded and stored, i.e. every row starts on a
// 4-byte boundary (width % 4 == 0 and both images 4-byte aligned). ROWS: rows per
// thread (kCoarsenRows; tools/tuning/tune-ch7.cu times others).
template <int RADIUS, bool WORDS, int ROWS = kCoarsenRows>
__global__ void box_mean_coarsened_kernel(const unsigned char* input, unsigned char* output, int width, int height) {
    // TODO(chapter3): 3c, step 1 (going further). Stage the block's tile in shared memory:
    //   the block computes (kBoxBlockX * kCoarsenX) x (kBoxBlockY * ROWS) output
    //   pixels, so its tile is that plus RADIUS rows above and below and HALO_X =
    //   RADIUS rounded up to a multiple of 4 columns left and right (whole 4-byte words).
    //   Load it one word per step: with WORDS and the word wholly inside the image, one
    //   4-byte load, *reinterpret_cast<const unsigned int*>(&input[y * width + x]);
    //   otherwise four bytes, each column clamped as in 3b. Then __syncthreads().

    // TODO(chapter3): 3c, step 2. This thread's first output pixel is column
    //   blockIdx.x * (kBoxBlockX * kCoarsenX) + threadIdx.x * kCoarsenX and row
    //   blockIdx.y * (kBoxBlockY * ROWS) + threadIdx.y * ROWS; return if it
    //   is outside the image. For each of the ROWS + 2 * RADIUS tile rows its boxes
    //   cover, compute the kCoarsenX row sums of 2R+1 pixels, sliding: the next column's
    //   sum adds the pixel entering on the right and drops the one leaving on the left.

    // TODO(chapter3): 3c, step 3. Slide down the rows: the first box sum of each column
    //   adds the first 2R+1 row sums; each next row adds one row sum and drops one. Store
    //   each row's kCoarsenX rounded means with one uchar4 store when WORDS and all four
    //   pixels are inside the image, else byte by byte for the pixels inside.
    (void)input, (void)output, (void)width, (void)height;
}

namespace {

template <int RADIUS = 0>
void launch_box_mean_coarsened(const unsigned char* input, unsigned char* output, int width, int height,
                               int radius) {
    if constexpr (RADIUS <= kMaxBoxRadius) {
        if (radius != RADIUS) {
            launch_box_mean_coarsened<RADIUS + 1>(input, output, width, height, radius);
            return;
        }
        const tutorial::LaunchConfig launch = box_mean_coarsened_launch_config(width, height);
        const bool words = width % 4 == 0 && reinterpret_cast<std::uintptr_t>(input) % 4 == 0 &&
                           reinterpret_cast<std::uintptr_t>(output) % 4 == 0;
        if (words) {
            box_mean_coarsened_kernel<RADIUS, true><<<launch.grid, launch.block>>>(input, output, width, height);
        } else {
            box_mean_coarsened_kernel<RADIUS, false><<<launch.grid, launch.block>>>(input, output, width, height);
        }
        CUDA_CHECK_KERNEL("box_mean_coarsened_kernel");
    }
}

}  // namespace

void box_mean_coarsened(const unsigned char* input, unsigned char* output, int width, int height, int radius) {
    tutorial::require_box_mean_arguments("box_mean_coarsened", input, output, width, height, radius, kMaxBoxRadius);
    launch_box_mean_coarsened(input, output, width, height, radius);
}
