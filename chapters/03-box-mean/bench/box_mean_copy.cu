// The benchmark's copy-only row: 3c's loads, tile and stores, without the box sums. The
// benchmark sets its rate beside 3c's; the gap between them is the work 3c does between
// its loads, and the gap between this row and the copy is the data movement's own.
//
// The staging is 3c's step 1 as the reference solution writes it (solutions/03-box-mean),
// kept in step with it by hand: when 3c's tile changes, change it here.
#include "bench/box_mean_copy.h"

#include "box_mean.h"
#include "box_mean_reference.h"
#include "cuda_check.h"

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

}  // namespace

void box_mean_copy(const unsigned char* input, unsigned char* output, int width, int height, int radius) {
    tutorial::require_box_mean_arguments("box_mean_copy", input, output, width, height, radius, kMaxBoxRadius);
    launch_box_mean_copy(input, output, width, height, radius);
}
