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

#include <cstdint>

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
    // BEGIN SOLUTION: 3c, step 1 (going further). Stage the block's tile in shared memory:
    //   the block computes (kBoxBlockX * kCoarsenX) x (kBoxBlockY * ROWS) output
    //   pixels, so its tile is that plus RADIUS rows above and below and HALO_X =
    //   RADIUS rounded up to a multiple of 4 columns left and right (whole 4-byte words).
    //   Load it one word per step: with WORDS and the word wholly inside the image, one
    //   4-byte load, *reinterpret_cast<const unsigned int*>(&input[y * width + x]);
    //   otherwise four bytes, each column clamped as in 3b. Then __syncthreads().
    constexpr int OUT_W = kBoxBlockX * kCoarsenX;      // output pixels per block along x
    constexpr int OUT_H = kBoxBlockY * ROWS;           // and along y
    constexpr int HALO_X = (RADIUS + 3) / 4 * 4;        // the x halo, rounded up to whole words
    constexpr int TILE_W = OUT_W + 2 * HALO_X;          // a multiple of 4: whole words
    constexpr int TILE_H = OUT_H + 2 * RADIUS;
    constexpr int WORDS_PER_ROW = TILE_W / 4;
    __shared__ __align__(4) unsigned char tile[TILE_H][TILE_W];

    // tile[r][c] is image pixel (tile_x0 + c, tile_y0 + r), clamped into the image.
    // tile_x0 is a multiple of 4 (OUT_W and HALO_X are), so with WORDS every word of a
    // tile row that lies inside the image is one aligned 4-byte load.
    const int tile_x0 = static_cast<int>(blockIdx.x) * OUT_W - HALO_X;
    const int tile_y0 = static_cast<int>(blockIdx.y) * OUT_H - RADIUS;
    const int thread = threadIdx.y * kBoxBlockX + threadIdx.x;
    for (int i = thread; i < TILE_H * WORDS_PER_ROW; i += kBoxBlockX * kBoxBlockY) {
        const int r = i / WORDS_PER_ROW, c = i % WORDS_PER_ROW * 4;
        const int y = min(max(tile_y0 + r, 0), height - 1);
        const int x = tile_x0 + c;
        unsigned int word;
        if (WORDS && x >= 0 && x + 3 < width) {
            word = *reinterpret_cast<const unsigned int*>(&input[y * width + x]);
        } else {
            // A word that crosses the image's edge, or rows that are not word-aligned: byte
            // by byte, each column clamped. (Little-endian: byte 0 is the lowest.)
            word = 0;
            for (int b = 0; b < 4; ++b) {
                word |= static_cast<unsigned int>(input[y * width + min(max(x + b, 0), width - 1)]) << (8 * b);
            }
        }
        *reinterpret_cast<unsigned int*>(&tile[r][c]) = word;
    }
    __syncthreads();
    // END SOLUTION

    // BEGIN SOLUTION: 3c, step 2. This thread's first output pixel is column
    //   blockIdx.x * (kBoxBlockX * kCoarsenX) + threadIdx.x * kCoarsenX and row
    //   blockIdx.y * (kBoxBlockY * ROWS) + threadIdx.y * ROWS; return if it
    //   is outside the image. For each of the ROWS + 2 * RADIUS tile rows its boxes
    //   cover, compute the kCoarsenX row sums of 2R+1 pixels, sliding: the next column's
    //   sum adds the pixel entering on the right and drops the one leaving on the left.
    const int x0 = blockIdx.x * OUT_W + threadIdx.x * kCoarsenX;  // this thread's first column
    const int y0 = blockIdx.y * OUT_H + threadIdx.y * ROWS;       // and first row
    if (x0 >= width || y0 >= height) {
        return;  // after the only barrier: the threads that return have loaded their share
    }

    // Row sums: h[r][c] is the sum of the 2R+1 pixels of tile row (first + r) centred on
    // the thread's column c, for the ROWS + 2R rows its boxes cover.
    int h[ROWS + 2 * RADIUS][kCoarsenX];
#pragma unroll
    for (int r = 0; r < ROWS + 2 * RADIUS; ++r) {
        const unsigned char* row = &tile[threadIdx.y * ROWS + r][threadIdx.x * kCoarsenX + HALO_X - RADIUS];
        int sum = 0;
#pragma unroll
        for (int dx = 0; dx <= 2 * RADIUS; ++dx) sum += row[dx];
        h[r][0] = sum;
#pragma unroll
        for (int c = 1; c < kCoarsenX; ++c) {
            sum += row[c + 2 * RADIUS] - row[c - 1];  // the window moves one column right
            h[r][c] = sum;
        }
    }

    // END SOLUTION

    // BEGIN SOLUTION: 3c, step 3. Slide down the rows: the first box sum of each column
    //   adds the first 2R+1 row sums; each next row adds one row sum and drops one. Store
    //   each row's kCoarsenX rounded means with one uchar4 store when WORDS and all four
    //   pixels are inside the image, else byte by byte for the pixels inside.
    //| (void)input, (void)output, (void)width, (void)height;
    // Column sums of the row sums: the box sum, slid down one row at a time.
    constexpr int area = (2 * RADIUS + 1) * (2 * RADIUS + 1);
    int box[kCoarsenX] = {};
#pragma unroll
    for (int r = 0; r <= 2 * RADIUS; ++r) {
#pragma unroll
        for (int c = 0; c < kCoarsenX; ++c) box[c] += h[r][c];
    }
#pragma unroll
    for (int i = 0; i < ROWS; ++i) {
        if (i > 0) {
#pragma unroll
            for (int c = 0; c < kCoarsenX; ++c) box[c] += h[i + 2 * RADIUS][c] - h[i - 1][c];
        }
        const int y = y0 + i;
        if (y < height) {
            unsigned char mean[kCoarsenX];
#pragma unroll
            for (int c = 0; c < kCoarsenX; ++c) mean[c] = static_cast<unsigned char>((box[c] + area / 2) / area);
            if (WORDS && x0 + kCoarsenX <= width) {
                *reinterpret_cast<uchar4*>(&output[y * width + x0]) = make_uchar4(mean[0], mean[1], mean[2], mean[3]);
            } else {
                for (int c = 0; c < kCoarsenX && x0 + c < width; ++c) output[y * width + x0 + c] = mean[c];
            }
        }
    }
    // END SOLUTION
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
