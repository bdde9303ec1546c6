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
    // TODO(chapter3): the tile's size, TILE_W columns by TILE_H rows, as constexpr ints:
    //   the block's kBoxBlockX x kBoxBlockY pixels and a halo of RADIUS on every side. Then
    //   the tile itself, in shared memory, one unsigned char per pixel.

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
// A thread computes COLS neighbouring pixels (kCoarsenX, a 16-byte chunk) of ROWS rows
// (kCoarsenRows). Its boxes share most of their terms, so it keeps running sums:
// column sums down the rows (the next row's adds the row entering below and drops the
// one leaving above), then box sums along the row (the next column's adds one column
// sum and drops one). Each output pixel then costs a few additions whatever the radius,
// instead of (2R+1)^2. All the sums are ints, so sliding them is exact: no rounding,
// as in 3a and 3b.

tutorial::LaunchConfig box_mean_coarsened_launch_config(int width, int height) {
    const dim3 block(kBoxBlockX, kBoxBlockY);
    const dim3 grid(tutorial::ceil_div(width, kBoxBlockX * kCoarsenX),
                    tutorial::ceil_div(height, kBoxBlockY * kCoarsenRows));
    return tutorial::LaunchConfig{grid, block};
}

/// COLS consecutive pixels moved as one load or store of COLS bytes (4, 8 or 16): the
/// alignment makes the compiler use one 4-, 8- or 16-byte instruction.
template <int COLS>
struct alignas(COLS) PixelChunk {
    static_assert(COLS == 4 || COLS == 8 || COLS == 16, "a chunk is one 4-, 8- or 16-byte access");
    unsigned int words[COLS / 4];  // little-endian: pixel b is byte b % 4 of word b / 4

    __device__ __forceinline__ int pixel(int b) const { return (words[b / 4] >> (8 * (b % 4))) & 0xFF; }
    __device__ __forceinline__ void set(int b, unsigned int value) {
        words[b / 4] = b % 4 == 0 ? value : words[b / 4] | value << (8 * (b % 4));
    }
};

// The SPAN = COLS + 2 * RADIUS pixels of tile row `row` that a thread's boxes cover: the
// RADIUS pixels left of its own chunk (which starts at column `own`), the chunk, and the
// RADIUS pixels right of it. The chunk is one aligned shared-memory load, and a warp's 32
// chunks are consecutive, so they take the fewest wavefronts; reading all SPAN pixels
// byte by byte would cost a load instruction, and up to 4 wavefronts, per pixel.
template <int COLS, int RADIUS, class TileRow>
__device__ __forceinline__ void read_span(const TileRow& row, int own, int (&pixels)[COLS + 2 * RADIUS]) {
    const PixelChunk<COLS> chunk = *reinterpret_cast<const PixelChunk<COLS>*>(&row[own]);
#pragma unroll
    for (int j = 0; j < RADIUS; ++j) {
        pixels[j] = row[own - RADIUS + j];
        pixels[RADIUS + COLS + j] = row[own + COLS + j];
    }
#pragma unroll
    for (int b = 0; b < COLS; ++b) pixels[RADIUS + b] = chunk.pixel(b);
}

// VECTOR: whether every row starts on a COLS-byte boundary (width % COLS == 0 and both
// images aligned), so that whole chunks may be loaded and stored. ROWS and COLS: pixels
// per thread down and along (kCoarsenRows and kCoarsenX; the template takes others, to
// compare).
template <int RADIUS, bool VECTOR, int ROWS = kCoarsenRows, int COLS = kCoarsenX>
__global__ void box_mean_coarsened_kernel(const unsigned char* input, unsigned char* output, int width, int height) {
    using Chunk = PixelChunk<COLS>;
    constexpr int OUT_W = kBoxBlockX * COLS;                    // output pixels per block along x
    constexpr int OUT_H = kBoxBlockY * ROWS;                    // and along y
    constexpr int HALO_X = (RADIUS + COLS - 1) / COLS * COLS;   // the x halo, in whole chunks
    constexpr int TILE_W = OUT_W + 2 * HALO_X;
    constexpr int TILE_H = OUT_H + 2 * RADIUS;
    constexpr int SPAN = COLS + 2 * RADIUS;                     // tile columns a thread's boxes cover
    constexpr int area = (2 * RADIUS + 1) * (2 * RADIUS + 1);
    static_assert(TILE_W * TILE_H <= 48 * 1024, "static shared memory is limited to 48 KB per block");
    __shared__ __align__(16) unsigned char tile[TILE_H][TILE_W];

    // TODO(chapter3): 3c, step 1 (going further). Stage the block's tile in shared memory:
    //   tile[r][c] is image pixel (tile_x0 + c, tile_y0 + r), clamped into the image, with
    //   tile_x0 = blockIdx.x * OUT_W - HALO_X and tile_y0 = blockIdx.y * OUT_H - RADIUS
    //   (ints: they are negative for the first blocks). Each tile row is TILE_W / COLS
    //   chunks: let threadIdx.y walk the rows and threadIdx.x the chunks of a row, in
    //   steps of the block's size. A chunk wholly inside the image, with VECTOR, is one
    //   load, *reinterpret_cast<const Chunk*>(&input[y * width + x]); any other is
    //   filled pixel by pixel (chunk.set), each column clamped as in 3b. Store each chunk
    //   with one store into the tile, then __syncthreads().

    // TODO(chapter3): 3c, step 2. This thread's first output pixel is column
    //   blockIdx.x * OUT_W + threadIdx.x * COLS and row blockIdx.y * OUT_H +
    //   threadIdx.y * ROWS; return if it is outside the image. Its own COLS columns start
    //   at tile column `own`: past the halo and the columns of the threads to its left.
    //   Its boxes cover the SPAN
    //   columns from own - RADIUS. Keep int column[SPAN]: the sums of tile rows
    //   threadIdx.y * ROWS ... + 2 * RADIUS, the box of its first output row, column by
    //   column. read_span (above) reads the SPAN pixels of one tile row.
    (void)input, (void)output, (void)width, (void)height, (void)tile, (void)sizeof(Chunk), (void)SPAN, (void)area;

    // TODO(chapter3): 3c, step 3. For each of the ROWS output rows (stop at the image's
    //   last row): from the second on, slide the column sums down one row (add tile row
    //   top + i + 2 * RADIUS, subtract tile row top + i - 1). Then slide along the row: the
    //   first box sum adds column[0 .. 2 * RADIUS]; each next one adds the column entering
    //   on the right and subtracts the one leaving on the left. Put the COLS rounded means
    //   in a Chunk and store it with one store when VECTOR and all COLS pixels are inside
    //   the image, else pixel by pixel for the pixels inside.
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
        const bool vector = width % kCoarsenX == 0 && reinterpret_cast<std::uintptr_t>(input) % kCoarsenX == 0 &&
                            reinterpret_cast<std::uintptr_t>(output) % kCoarsenX == 0;
        if (vector) {
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
