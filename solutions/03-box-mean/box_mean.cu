// Chapter 3: the box mean of an 8-bit image, first from global memory (3a), then from a
// shared-memory tile with a halo (3b).
//
// Reference solution.
//
// Output pixel (x, y) is the mean of the (2R+1) x (2R+1) pixels around it: summed in an
// int, rounded to nearest with (sum + area/2) / area, and with neighbours outside the
// image clamped to the nearest edge pixel. Images are row-major: pixel (x, y) is at
// index y * width + x.
#include "box_mean.h"

#include "cuda_check.h"
#include "box_mean_reference.h"

// The radius is a template parameter, like chapter 2's TILE: the compiler unrolls the
// loops over the box, and RADIUS sizes the shared tile of 3b.

// 3a: one thread per output pixel, reading its (2R+1)^2 neighbours from global memory.
// BEGIN SOLUTION
// Neighbouring threads read overlapping boxes, so most of these reads hit the L1 cache.
// END SOLUTION
template <int RADIUS>
__global__ void box_mean_global_kernel(const unsigned char* input, unsigned char* output, int width, int height) {
    // BEGIN SOLUTION: this thread's pixel (x, y), x along the columns as in chapter 1, and
    //   an early return for threads outside the image.
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    // END SOLUTION

    // BEGIN SOLUTION: sum the pixels (x + dx, y + dy) for dx and dy from -RADIUS to RADIUS
    //   into an int. Clamp each neighbour's coordinates into the image first:
    //   min(max(y + dy, 0), height - 1), and the same for x with width.
    int sum = 0;
#pragma unroll
    for (int dy = -RADIUS; dy <= RADIUS; ++dy) {
        // Clamp to edge: a neighbour outside the image is replaced by the nearest edge pixel.
        const int ny = min(max(y + dy, 0), height - 1);
#pragma unroll
        for (int dx = -RADIUS; dx <= RADIUS; ++dx) {
            const int nx = min(max(x + dx, 0), width - 1);
            sum += input[ny * width + nx];
        }
    }
    // END SOLUTION

    // BEGIN SOLUTION: store the rounded mean, (sum + area / 2) / area with
    //   area = (2 * RADIUS + 1)^2, in output[y * width + x].
    constexpr int area = (2 * RADIUS + 1) * (2 * RADIUS + 1);
    output[y * width + x] = static_cast<unsigned char>((sum + area / 2) / area);
    // END SOLUTION
}

tutorial::LaunchConfig box_mean_launch_config(int width, int height) {
    // BEGIN SOLUTION: a kBoxBlockX x kBoxBlockY block and a grid that covers all width
    //   columns (grid.x) and all height rows (grid.y), rounded up with tutorial::ceil_div.
    //| (void)width;
    //| (void)height;
    //| return tutorial::LaunchConfig{dim3(1, 1), dim3(1, 1)};
    const dim3 block(kBoxBlockX, kBoxBlockY);
    const dim3 grid(tutorial::ceil_div(width, kBoxBlockX), tutorial::ceil_div(height, kBoxBlockY));
    return tutorial::LaunchConfig{grid, block};
    // END SOLUTION
}

// 3b: the block first copies its tile of the image into shared memory: the
// kBoxBlockX x kBoxBlockY pixels it computes plus a halo of RADIUS pixels on every side.
// BEGIN SOLUTION
// The halo belongs to the neighbouring blocks' tiles too. Each pixel of the tile is
// then read from global memory once, and up to (2R+1)^2 times from shared memory.
// END SOLUTION
template <int RADIUS>
__global__ void box_mean_shared_kernel(const unsigned char* input, unsigned char* output, int width, int height) {
    // BEGIN SOLUTION: the tile's size, TILE_W = kBoxBlockX + 2 * RADIUS columns by
    //   TILE_H = kBoxBlockY + 2 * RADIUS rows (constexpr int), and the tile itself:
    //   __shared__ unsigned char tile[TILE_H][TILE_W].
    constexpr int TILE_W = kBoxBlockX + 2 * RADIUS;
    constexpr int TILE_H = kBoxBlockY + 2 * RADIUS;
    __shared__ unsigned char tile[TILE_H][TILE_W];
    // END SOLUTION

    // BEGIN SOLUTION: the image coordinates of tile[0][0]: RADIUS left of and RADIUS
    //   above the block's first output pixel (blockIdx.x * kBoxBlockX, blockIdx.y * kBoxBlockY).
    //   They are negative for the first blocks, so make them int: blockIdx is unsigned.
    // tile[0][0] is image pixel (tile_x0, tile_y0), up and left of the block's first
    // output pixel by RADIUS; it may lie outside the image, so these are signed ints
    // (blockIdx is unsigned, and 0u - 1 is 4294967295).
    const int tile_x0 = static_cast<int>(blockIdx.x) * kBoxBlockX - RADIUS;
    const int tile_y0 = static_cast<int>(blockIdx.y) * kBoxBlockY - RADIUS;
    // END SOLUTION

    // BEGIN SOLUTION: load the tile. It has more pixels than the block has threads, so
    //   loop: number the block's threads 0 .. kBoxBlockX * kBoxBlockY - 1 row by row, and
    //   let thread t load tile pixels t, t + kBoxBlockX * kBoxBlockY, ... (pixel i is at
    //   row i / TILE_W, column i % TILE_W). Clamp the image coordinates as in 3a. Every
    //   thread loads, even one whose own output pixel is outside the image.
    // Consecutive threads load consecutive pixels of a row: coalesced reads.
    const int thread = threadIdx.y * kBoxBlockX + threadIdx.x;
    for (int i = thread; i < TILE_W * TILE_H; i += kBoxBlockX * kBoxBlockY) {
        const int ty = i / TILE_W, tx = i % TILE_W;
        const int ny = min(max(tile_y0 + ty, 0), height - 1);
        const int nx = min(max(tile_x0 + tx, 0), width - 1);
        tile[ty][tx] = input[ny * width + nx];
    }
    // END SOLUTION

    // BEGIN SOLUTION: wait until the whole tile is loaded: threads are about to read
    //   pixels other threads loaded.
    __syncthreads();
    // END SOLUTION

    // BEGIN SOLUTION: now return if this thread's pixel is outside the image. Otherwise
    //   sum its box from the tile: it starts at tile[threadIdx.y][threadIdx.x] and is
    //   2 * RADIUS + 1 pixels wide and high (no clamping: the load did it). Store the
    //   rounded mean as in 3a.
    const int x = blockIdx.x * kBoxBlockX + threadIdx.x;
    const int y = blockIdx.y * kBoxBlockY + threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    // Output pixel (x, y) is tile pixel (threadIdx.x + RADIUS, threadIdx.y + RADIUS); its
    // box starts RADIUS up and left of it, at (threadIdx.x, threadIdx.y). The clamping
    // happened during the load, so there is none here.
    int sum = 0;
#pragma unroll
    for (int dy = 0; dy <= 2 * RADIUS; ++dy) {
#pragma unroll
        for (int dx = 0; dx <= 2 * RADIUS; ++dx) {
            sum += tile[threadIdx.y + dy][threadIdx.x + dx];
        }
    }
    constexpr int area = (2 * RADIUS + 1) * (2 * RADIUS + 1);
    output[y * width + x] = static_cast<unsigned char>((sum + area / 2) / area);
    // END SOLUTION
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
