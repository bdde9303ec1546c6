// Chapter 3: the box mean of an 8-bit image, first from global memory (3a), then from a
// shared-memory tile with a halo (3b); going further, with thread coarsening (3c) and with
// rows streamed through a ring of shared-memory buffers by asynchronous copies (3d).
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

#include <cuda_pipeline.h>  // __pipeline_memcpy_async and the other cp.async primitives (3d)

#include <cstdint>

// The radius is a template parameter, like chapter 2's TILE: the compiler unrolls the
// loops over the box, and RADIUS sizes the shared tile of 3b.

// 3a: one thread per output pixel, reading its (2R+1)^2 neighbours from global memory.
template <int RADIUS>
__global__ void box_mean_global_kernel(const unsigned char* input, unsigned char* output, int width, int height) {
    // TODO(chapter3): this thread's pixel (x, y), x along the columns as in chapter 1, and
    //   an early return for threads outside the image.

    // TODO(chapter3): sum the pixels (x + dx, y + dy) for dx and dy from -RADIUS to RADIUS
    //   into an int. Clamp each neighbour's coordinates into the image first: a neighbour
    //   past an edge takes the value of the edge pixel nearest it, in x and in y.

    // TODO(chapter3): store the mean of the box's (2·RADIUS + 1)² pixels, rounded to the
    //   nearest integer (integer division rounds down: what do you add first?), in the
    //   output pixel.
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

// ---- 3d (going further): a ring of rows, refilled by asynchronous copies --------------
// A block of kRingThreads threads owns a strip kRingStripWidth pixels wide and kRingRows
// output rows high, and walks down it one row at a time. The input rows it needs wait in a
// ring of shared-memory buffers, one row of the strip (halo included) each. cp.async copies
// them from global memory to shared memory without passing through registers, so a thread
// starts the copy of a row PREFETCH rows ahead and computes the current row while it is in
// flight: the block always has loads in flight, where 3c had none while it summed its tile.
// The sums are 3c's, column sums sliding down in registers and box sums sliding along, with
// two column sums to an int; the halo pixels of a thread's span come from its neighbouring
// lanes (read_ring_row).

tutorial::LaunchConfig box_mean_ring_launch_config(int width, int height) {
    // One dimension: width 1 and height 2^31 - 1 need more segments than grid.y's 65535.
    const unsigned strips = static_cast<unsigned>(tutorial::ceil_div(width, kRingStripWidth));
    const unsigned segments = static_cast<unsigned>(tutorial::ceil_div(height, kRingRows));
    return tutorial::LaunchConfig{dim3(strips * segments), dim3(kRingThreads)};
}

// Start this thread's copies of input row `image_row` (any integer: clamped into the image)
// into `ring_row`, the ring row whose first byte is image column x0 - HALO_X.
template <int RADIUS, bool VECTOR>
__device__ __forceinline__ void start_ring_row_copy(unsigned char* ring_row, const unsigned char* input, int width,
                                                    int height, int x0, int image_row) {
    using Geometry = RingGeometry<RADIUS>;
    constexpr int COLS = Geometry::COLS;
    // TODO(chapter3): 3d, step 1 (going further). Clamp image_row into the image as 3b
    //   clamps its rows. Chunk c (threadIdx.x, threadIdx.x + kRingThreads, ... below
    //   ROW_CHUNKS: at most COPIES of them, a fixed count, unrolled, so that nvcc finds each
    //   chunk's place once for all rows rather than on every row) covers image columns
    //   x = x0 - HALO_X + c * COLS onwards. A chunk wholly
    //   inside the image, with VECTOR, is one 16-byte asynchronous copy:
    //   __pipeline_memcpy_async(&ring_row[c * COLS], &input[...], COLS): it needs both
    //   addresses on 16 bytes, which VECTOR and the ring's alignment give. With VECTOR,
    //   every other chunk lies wholly outside the image: leave it unfilled, since
    //   read_ring_row clamps the columns left of 0 and right of width - 1 itself (a
    //   thread that filled it would wait here for its loads, and its block at the next
    //   barrier). Without VECTOR, a chunk that is not wholly inside crosses the image's edge
    //   or is misaligned: fill it pixel by pixel with clamped columns (PixelChunk::set) and
    //   store it with one ordinary 16-byte shared store.
    (void)ring_row, (void)input, (void)width, (void)height, (void)x0, (void)image_row, (void)COLS;
}

// The words of a ring row that a thread's boxes read: its own 16-byte chunk (4 words) and
// WORDS words on either side for the R pixels of halo, so that byte b of `word` is the pixel
// of ring column own - 4 * WORDS + b. The halo words are the last words of lane t - 1's
// chunk and the first of lane t + 1's, which those lanes have just loaded: a shuffle brings
// them, where reading them from shared memory byte by byte costs a 4-way bank conflict each
// (the lanes' bytes lie 16 bytes, four banks, apart). Only lanes 0 and 31 have no neighbour
// in the warp on one side; they read that side's words from shared memory. At the image's
// edges it clamps, as 3a does, a whole word at a time: the thread whose chunk starts at
// column 0 (x0) fills its left words with its first pixel, and the one whose chunk holds
// column `width` - 1 its right words with that pixel, byte 15 of its chunk (a chunk that
// crosses the edge was filled with clamped columns). So the ring needs nothing outside the
// image, and a chunk past the image's right edge is not read at all. Every lane of the
// warp must call it (the shuffles).
template <int RADIUS>
struct RingRowWords {
    static constexpr int WORDS = (RADIUS + 3) / 4;  // words of a neighbour's chunk that hold the halo
    unsigned int word[4 + 2 * WORDS];

    // Pixels 2p and 2p + 1 of the words (bytes 2p and 2p + 1) as the low and high 16 bits of
    // one int: two column sums then take one addition (see the kernel).
    __device__ __forceinline__ unsigned int pixel_pair(int p) const {
        return __byte_perm(word[p / 2], 0, p % 2 == 0 ? 0x4140 : 0x4342);
    }
};

template <int RADIUS, class RingRow>
__device__ __forceinline__ RingRowWords<RADIUS> read_ring_row(const RingRow& row, int own, int x0, int width) {
    constexpr int WORDS = RingRowWords<RADIUS>::WORDS;
    RingRowWords<RADIUS> words;
    PixelChunk<16> chunk = {};
    if (x0 < width) chunk = *reinterpret_cast<const PixelChunk<16>*>(&row[own]);
#pragma unroll
    for (int w = 0; w < 4; ++w) words.word[WORDS + w] = chunk.words[w];
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int w = 0; w < WORDS; ++w) {
        unsigned int left = __shfl_up_sync(0xFFFFFFFFu, chunk.words[4 - WORDS + w], 1);
        unsigned int right = __shfl_down_sync(0xFFFFFFFFu, chunk.words[w], 1);
        if (lane == 0 && x0 > 0) left = reinterpret_cast<const unsigned int*>(&row[own - 4 * WORDS])[w];
        if (lane == 31 && x0 + 16 < width) right = reinterpret_cast<const unsigned int*>(&row[own + 16])[w];
        // x * 0x01010101: the pixel x in all four bytes.
        words.word[w] = x0 == 0 ? chunk.pixel(0) * 0x01010101u : left;
        words.word[WORDS + 4 + w] = x0 + 16 >= width ? chunk.pixel(15) * 0x01010101u : right;
    }
    return words;
}

// VECTOR: every row starts on a 16-byte boundary (width % 16 == 0 and both images aligned),
// so that whole chunks may be copied asynchronously and stored as one.
// (__launch_bounds__: the kernel runs kRingThreads threads a block; knowing it, ptxas gives
// it fewer registers, 64 rather than 72 at R = 1 for sm_90a.)
template <int RADIUS, bool VECTOR>
__global__ void __launch_bounds__(kRingThreads)
    box_mean_ring_kernel(const unsigned char* input, unsigned char* output, int width, int height) {
    using Geometry = RingGeometry<RADIUS>;
    using Chunk = PixelChunk<Geometry::COLS>;
    using Words = RingRowWords<RADIUS>;
    constexpr int COLS = Geometry::COLS, RING = Geometry::RING;
    constexpr int SPAN = COLS + 2 * RADIUS;
    constexpr unsigned int area = (2 * RADIUS + 1) * (2 * RADIUS + 1);
    constexpr int PREFETCH = RING - 2 * RADIUS - 2;
    // The thread's span, ring columns own - RADIUS .. own + COLS + RADIUS - 1, is bytes
    // FIRST .. FIRST + SPAN - 1 of a row's words, and pairs FIRST / 2 .. LAST / 2 of them.
    constexpr int FIRST = 4 * Words::WORDS - RADIUS, LAST = FIRST + SPAN - 1;
    constexpr int PAIRS = LAST / 2 - FIRST / 2 + 1;
    __shared__ __align__(128) unsigned char ring_rows[RING][Geometry::ROW_STRIDE];
    // Ring row k, from its first byte (image column strip_x0 - HALO_X).
    const auto ring = [&](int k) -> unsigned char* { return ring_rows[k] + Geometry::LEAD; };

    // The block's strip and segment: blocks next to each other in the launch take strips
    // side by side, so a segment's neighbours above and below run at the same time and its
    // halo rows are still in L2 when they read them.
    const int strips = (width + kRingStripWidth - 1) / kRingStripWidth;
    const int strip_x0 = static_cast<int>(blockIdx.x % strips) * kRingStripWidth;
    const int segment_y0 = static_cast<int>(blockIdx.x / strips) * kRingRows;
    const int rows = min(kRingRows, height - segment_y0);  // output rows of this block
    const int x0 = strip_x0 + threadIdx.x * COLS;             // this thread's first column
    const int own = threadIdx.x * COLS + Geometry::HALO_X;     // and its ring column
    // Input row k of the segment (k = 0 .. rows + 2R - 1) is image row segment_y0 - R + k,
    // in ring row k % RING. Output row i needs input rows i .. i + 2R.
    const int input_rows = rows + 2 * RADIUS;

    // TODO(chapter3): 3d, step 2. The prologue: start the copies of input rows
    //   0 .. RING - 3 (2R + PREFETCH rows), each into its ring row k % RING, and
    //   __pipeline_commit() after each row, even when the row is past input_rows and
    //   nothing was copied: every thread then numbers its batches as the rows, batch k
    //   holds row k, and a wait can count them.

    // The column sums of the current output row's box, two columns to an int: pair q holds
    // those of bytes 2 * (FIRST / 2 + q) and 2 * (FIRST / 2 + q) + 1 of a row's words in its
    // low and high 16 bits. A column sum
    // is at most (2R + 1) * 255 = 4335 (R = 8), so a half never carries into the other, and
    // adding and subtracting both halves at once is exact.
    unsigned int column[PAIRS] = {};
    // Output row i = base + r reads input rows i - 1 .. i + 2R, in ring rows
    // (r - 1) % RING .. (r + 2R) % RING, since base is a multiple of RING. Unrolled over r,
    // every ring row is a constant: the shared-memory addresses need no arithmetic.
    for (int base = 0; base < rows; base += RING) {
#pragma unroll
        for (int r = 0; r < RING; ++r) {
            const int i = base + r;
            if (i >= rows) break;
            // TODO(chapter3): 3d, step 3. Before computing output row i, row i + 2R must have
            //   landed, for every thread: wait (__pipeline_wait_prior) until at most this
            //   thread's PREFETCH - 1 newest batches are in flight, then __syncthreads() shows
            //   every thread's copies and stores to the others. The barrier also says that every
            //   thread has finished output row i - 1, so the ring row of input row i - 2 (read
            //   last, as the row leaving, by output row i - 1) is free: refill it with input row
            //   i + RING - 2 (ring row (r + RING - 2) % RING: for i = 0 and 1, one of the two the
            //   prologue left empty) if it is below input_rows, and commit, one batch per output
            //   row, copied or not. Only then compute row i, while the new copies are in flight.

            // TODO(chapter3): 3d, step 4. The column sums, two columns to an int: for i = 0,
            //   add the pixel pairs (Words::pixel_pair(FIRST / 2 + q)) of input rows 0 .. 2R,
            //   each read with read_ring_row at `own`, x0 and width; after it, add the pairs of
            //   the row entering (i + 2R, ring row (r + 2R) % RING) and subtract those of the
            //   row leaving (i - 1, ring row (r + RING - 1) % RING). Every thread reads its rows,
            //   even one past the image's right edge: the shuffles need the whole warp. Then,
            //   where x0 < width, take each column sum out of its half, slide the box along the
            //   row as 3c does, and store the COLS means of image row segment_y0 + i (the
            //   rounding's area / 2 can start the box sum), only where x0 + c < width.
            (void)ring, (void)output, (void)sizeof(Chunk), (void)sizeof(Words), (void)area, (void)own, (void)x0;
            (void)column, (void)input_rows, (void)PREFETCH, (void)r, (void)FIRST, (void)PAIRS, (void)SPAN;
        }
    }
}

namespace {

template <int RADIUS = 0>
void launch_box_mean_ring(const unsigned char* input, unsigned char* output, int width, int height, int radius) {
    if constexpr (RADIUS <= kMaxBoxRadius) {
        if (radius != RADIUS) {
            launch_box_mean_ring<RADIUS + 1>(input, output, width, height, radius);
            return;
        }
        const tutorial::LaunchConfig launch = box_mean_ring_launch_config(width, height);
        const bool vector = width % kCoarsenX == 0 && reinterpret_cast<std::uintptr_t>(input) % kCoarsenX == 0 &&
                            reinterpret_cast<std::uintptr_t>(output) % kCoarsenX == 0;
        if (vector) {
            box_mean_ring_kernel<RADIUS, true><<<launch.grid, launch.block>>>(input, output, width, height);
        } else {
            box_mean_ring_kernel<RADIUS, false><<<launch.grid, launch.block>>>(input, output, width, height);
        }
        CUDA_CHECK_KERNEL("box_mean_ring_kernel");
    }
}

}  // namespace

void box_mean_ring(const unsigned char* input, unsigned char* output, int width, int height, int radius) {
    tutorial::require_box_mean_arguments("box_mean_ring", input, output, width, height, radius, kMaxBoxRadius);
    launch_box_mean_ring(input, output, width, height, radius);
}
