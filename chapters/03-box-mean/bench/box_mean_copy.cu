// The benchmark's copy-only rows: 3c's loads, tile and stores, and 3d's ring of rows with its
// asynchronous copies and stores, each without the box sums. The benchmark sets each rate
// beside its step's; the gap between them is the work the step does between its loads, and
// the gap between the row and the copy is the data movement's own.
//
// The staging is 3c's step 1 and 3d's ring as the reference solution writes them
// (solutions/03-box-mean): the ring's geometry is RingGeometry (box_mean.h), shared with
// 3d; the loops are kept in step with the solution by hand: when 3c's tile or 3d's loop
// changes, change it here.
#include "bench/box_mean_copy.h"

#include "box_mean.h"
#include "box_mean_reference.h"
#include "cuda_check.h"

#include <cuda_pipeline.h>

#include <cstdint>

namespace {

// COLS pixels moved as one load or store of COLS bytes.
template <int COLS>
struct alignas(COLS) PixelBytes {
    unsigned char pixel[COLS];
};

template <int RADIUS, bool VECTOR, int ROWS = kCoarsenRows, int COLS = kCoarsenX>
__global__ void box_mean_copy_kernel(const unsigned char* input, unsigned char* output, int width, int height) {
    using Chunk = PixelBytes<COLS>;
    constexpr int OUT_W = kBoxBlockX * COLS;
    constexpr int OUT_H = kBoxBlockY * ROWS;
    constexpr int HALO_X = (RADIUS + COLS - 1) / COLS * COLS;
    constexpr int TILE_W = OUT_W + 2 * HALO_X;
    constexpr int TILE_H = OUT_H + 2 * RADIUS;
    __shared__ __align__(16) unsigned char tile[TILE_H][TILE_W];

    // 3c's step 1: the tile, a row of chunks per warp, clamped into the image.
    const int tile_x0 = static_cast<int>(blockIdx.x) * OUT_W - HALO_X;
    const int tile_y0 = static_cast<int>(blockIdx.y) * OUT_H - RADIUS;
    for (int r = threadIdx.y; r < TILE_H; r += kBoxBlockY) {
        const int y = min(max(tile_y0 + r, 0), height - 1);
        for (int c = threadIdx.x; c < TILE_W / COLS; c += kBoxBlockX) {
            const int x = tile_x0 + c * COLS;
            Chunk chunk;
            if (VECTOR && x >= 0 && x + COLS <= width) {
                chunk = *reinterpret_cast<const Chunk*>(&input[y * width + x]);
            } else {
#pragma unroll
                for (int b = 0; b < COLS; ++b) chunk.pixel[b] = input[y * width + min(max(x + b, 0), width - 1)];
            }
            *reinterpret_cast<Chunk*>(&tile[r][c * COLS]) = chunk;
        }
    }
    __syncthreads();

    // 3c's stores, of the tile's interior: pixel (x, y) is tile[y - tile_y0][x - tile_x0].
    const int x0 = blockIdx.x * OUT_W + threadIdx.x * COLS;
    const int y0 = blockIdx.y * OUT_H + threadIdx.y * ROWS;
    if (x0 >= width || y0 >= height) {
        return;
    }
    const int own = threadIdx.x * COLS + HALO_X;
#pragma unroll
    for (int i = 0; i < ROWS; ++i) {
        const int y = y0 + i;
        if (y >= height) {
            break;
        }
        const Chunk pixels = *reinterpret_cast<const Chunk*>(&tile[threadIdx.y * ROWS + i + RADIUS][own]);
        if (VECTOR && x0 + COLS <= width) {
            *reinterpret_cast<Chunk*>(&output[y * width + x0]) = pixels;
        } else {
#pragma unroll
            for (int c = 0; c < COLS; ++c) {
                if (x0 + c < width) output[y * width + x0 + c] = pixels.pixel[c];
            }
        }
    }
}

// 3d's ring without its sums: the same strips and segments, the same ring of
// 2R + 2 + kRingPrefetch rows refilled by 16-byte cp.async copies (with aligned rows, the
// chunks outside the image left unfilled; otherwise byte loads and stores at the edges),
// the same wait and barrier per output row; each thread then stores its chunk
// of the row's middle input row, image row segment_y0 + i, with 3d's stores.
template <int RADIUS, bool VECTOR>
__global__ void box_mean_ring_copy_kernel(const unsigned char* input, unsigned char* output, int width, int height) {
    using Geometry = RingGeometry<RADIUS>;
    constexpr int COLS = Geometry::COLS, HALO_X = Geometry::HALO_X, RING = Geometry::RING;
    using Chunk = PixelBytes<COLS>;
    __shared__ __align__(128) unsigned char ring_rows[RING][Geometry::ROW_STRIDE];
    const auto ring = [&](int k) -> unsigned char* { return ring_rows[k] + Geometry::LEAD; };

    const int strips = (width + kRingStripWidth - 1) / kRingStripWidth;
    const int strip_x0 = static_cast<int>(blockIdx.x % strips) * kRingStripWidth;
    const int segment_y0 = static_cast<int>(blockIdx.x / strips) * kRingRows;
    const int rows = min(kRingRows, height - segment_y0);
    const int input_rows = rows + 2 * RADIUS;
    const int x0 = strip_x0 + threadIdx.x * COLS;
    const int own = threadIdx.x * COLS + HALO_X;
    const auto start_row = [&](int k, unsigned char* ring_row) {
        const int y = min(max(segment_y0 - RADIUS + k, 0), height - 1);
        const unsigned char* row = input + static_cast<long long>(y) * width;
#pragma unroll
        for (int q = 0; q < Geometry::COPIES; ++q) {
            const int c = threadIdx.x + q * kRingThreads;
            if (c >= Geometry::ROW_CHUNKS) break;
            const int x = strip_x0 - HALO_X + c * COLS;
            if (VECTOR && x >= 0 && x + COLS <= width) {
                __pipeline_memcpy_async(&ring_row[c * COLS], &row[x], COLS);
            } else if (!VECTOR) {
                Chunk chunk;
#pragma unroll
                for (int b = 0; b < COLS; ++b) chunk.pixel[b] = row[min(max(x + b, 0), width - 1)];
                *reinterpret_cast<Chunk*>(&ring_row[c * COLS]) = chunk;
            }
        }
    };
    for (int k = 0; k < RING - 2; ++k) {
        if (k < input_rows) start_row(k, ring(k % RING));
        __pipeline_commit();
    }
    // 3d's loop over output rows, unrolled over the ring so that every ring row is a constant.
    for (int base = 0; base < rows; base += RING) {
#pragma unroll
        for (int r = 0; r < RING; ++r) {
            const int i = base + r;
            if (i >= rows) break;
            __pipeline_wait_prior(kRingPrefetch - 1);
            __syncthreads();
            if (i + RING - 2 < input_rows) start_row(i + RING - 2, ring((r + RING - 2) % RING));
            __pipeline_commit();
            if (x0 < width) {
                const Chunk pixels = *reinterpret_cast<const Chunk*>(&ring((r + RADIUS) % RING)[own]);
                unsigned char* out_row = output + static_cast<long long>(segment_y0 + i) * width;
                if (VECTOR && x0 + COLS <= width) {
                    *reinterpret_cast<Chunk*>(&out_row[x0]) = pixels;
                } else {
#pragma unroll
                    for (int c = 0; c < COLS; ++c) {
                        if (x0 + c < width) out_row[x0 + c] = pixels.pixel[c];
                    }
                }
            }
        }
    }
}

template <int RADIUS = 0>
void launch_box_mean_copy(const unsigned char* input, unsigned char* output, int width, int height, int radius) {
    if constexpr (RADIUS <= kMaxBoxRadius) {
        if (radius != RADIUS) {
            launch_box_mean_copy<RADIUS + 1>(input, output, width, height, radius);
            return;
        }
        const dim3 block(kBoxBlockX, kBoxBlockY);
        const dim3 grid(tutorial::ceil_div(width, kBoxBlockX * kCoarsenX), tutorial::ceil_div(height, kBoxBlockY * kCoarsenRows));
        const bool vector = width % kCoarsenX == 0 && reinterpret_cast<std::uintptr_t>(input) % kCoarsenX == 0 &&
                            reinterpret_cast<std::uintptr_t>(output) % kCoarsenX == 0;
        if (vector) {
            box_mean_copy_kernel<RADIUS, true><<<grid, block>>>(input, output, width, height);
        } else {
            box_mean_copy_kernel<RADIUS, false><<<grid, block>>>(input, output, width, height);
        }
        CUDA_CHECK_KERNEL("box_mean_copy_kernel");
    }
}

template <int RADIUS = 0>
void launch_box_mean_ring_copy(const unsigned char* input, unsigned char* output, int width, int height, int radius) {
    if constexpr (RADIUS <= kMaxBoxRadius) {
        if (radius != RADIUS) {
            launch_box_mean_ring_copy<RADIUS + 1>(input, output, width, height, radius);
            return;
        }
        // 3d's launch (box_mean_ring_launch_config is the solution's, which the student's
        // build may lack): one block per strip and segment, in one dimension.
        const dim3 grid(static_cast<unsigned>(tutorial::ceil_div(width, kRingStripWidth) *
                                              tutorial::ceil_div(height, kRingRows)));
        const bool vector = width % kCoarsenX == 0 && reinterpret_cast<std::uintptr_t>(input) % kCoarsenX == 0 &&
                            reinterpret_cast<std::uintptr_t>(output) % kCoarsenX == 0;
        if (vector) {
            box_mean_ring_copy_kernel<RADIUS, true><<<grid, kRingThreads>>>(input, output, width, height);
        } else {
            box_mean_ring_copy_kernel<RADIUS, false><<<grid, kRingThreads>>>(input, output, width, height);
        }
        CUDA_CHECK_KERNEL("box_mean_ring_copy_kernel");
    }
}

}  // namespace

void box_mean_copy(const unsigned char* input, unsigned char* output, int width, int height, int radius) {
    tutorial::require_box_mean_arguments("box_mean_copy", input, output, width, height, radius, kMaxBoxRadius);
    launch_box_mean_copy(input, output, width, height, radius);
}

void box_mean_ring_copy(const unsigned char* input, unsigned char* output, int width, int height, int radius) {
    tutorial::require_box_mean_arguments("box_mean_ring_copy", input, output, width, height, radius, kMaxBoxRadius);
    launch_box_mean_ring_copy(input, output, width, height, radius);
}
