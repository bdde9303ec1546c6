// The benchmark's copy-only row: 5d's tiles, loads and stores, without the transposition:
// each tile goes back where it came from. The staging is 5d's as the reference solution
// writes it (solutions/05-transpose), kept in step with it by hand.
#include "bench/transpose_copy.h"

#include "cuda_check.h"
#include "transpose.h"
#include "transpose_reference.h"

namespace {

constexpr int kRowsPerThread = kTransposeWideTile / kTransposeBlockRows;  // 8

// visit(e, i, k) for each of this thread's 16 places (i, k) of the 64 x 64 tile, as 5d's.
template <class Visit>
__device__ __forceinline__ void for_each_place(Visit&& visit) {
#pragma unroll
    for (int j = 0; j < kRowsPerThread; ++j) {
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            visit(2 * j + half, static_cast<int>(threadIdx.y) + j * kTransposeBlockRows,
                  static_cast<int>(threadIdx.x) + half * kTransposeTile);
        }
    }
}

__global__ void transpose_copy_kernel(const float* input, float* output, int rows, int cols) {
    __shared__ float tile[kTransposeWideTile][kTransposeWideTile + 1];
    const int tile_row = blockIdx.y * kTransposeWideTile;
    const int tile_col = blockIdx.x * kTransposeWideTile;
    const bool whole_tile = tile_row + kTransposeWideTile <= rows && tile_col + kTransposeWideTile <= cols;
    if (whole_tile) {
        float values[2 * kRowsPerThread];
        for_each_place([&](int e, int i, int k) { values[e] = input[(tile_row + i) * cols + tile_col + k]; });
        for_each_place([&](int e, int i, int k) { tile[i][k] = values[e]; });
    } else {
        for_each_place([&](int, int i, int k) {
            if (tile_row + i < rows && tile_col + k < cols) {
                tile[i][k] = input[(tile_row + i) * cols + tile_col + k];
            }
        });
    }
    __syncthreads();
    // 5d stores tile[k][i] at output row tile_col + i; the copy, tile[i][k] at its own place.
    for_each_place([&](int, int i, int k) {
        if (whole_tile || (tile_row + i < rows && tile_col + k < cols)) {
            output[(tile_row + i) * cols + tile_col + k] = tile[i][k];
        }
    });
}

}  // namespace

void transpose_copy(const float* input, float* output, int rows, int cols) {
    tutorial::require_transpose_arguments("transpose_copy", input, output, rows, cols, kTransposeMaxRows);
    const dim3 grid(tutorial::ceil_div(cols, kTransposeWideTile), tutorial::ceil_div(rows, kTransposeWideTile));
    transpose_copy_kernel<<<grid, dim3(kTransposeTile, kTransposeBlockRows)>>>(input, output, rows, cols);
    CUDA_CHECK_KERNEL("transpose_copy_kernel");
}
