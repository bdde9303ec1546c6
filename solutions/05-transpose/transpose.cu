// Chapter 5, reference solution: the transpose of a rows x cols float matrix, three
// ways: straight in global memory (5a), through a 32 x 32 shared tile (5b), and through
// the same tile padded to 32 x 33, which has no bank conflicts (5c).
//
// output(c, r) = input(r, c): input element r * cols + c goes to output element
// c * rows + r. All three kernels use one launch: 32 x 8 threads per block, one block
// per 32 x 32 tile of the input, each thread moving 4 elements of its tile.
#include "transpose.h"

#include "cuda_check.h"
#include "validate.h"

// 5a: each thread copies its 4 elements directly. A warp reads 32 consecutive floats
// of an input row (coalesced), but writes them down an output column: 32 addresses
// `rows` floats apart, 32 separate memory transactions.
__global__ void transpose_naive_kernel(const float* input, float* output, int rows, int cols) {
    const int c = blockIdx.x * kTransposeTile + threadIdx.x;
    if (c >= cols) {
        return;
    }
    const int first_row = blockIdx.y * kTransposeTile + threadIdx.y;
    for (int j = 0; j < kTransposeTile; j += kTransposeBlockRows) {
        const int r = first_row + j;
        if (r < rows) {
            output[c * rows + r] = input[r * cols + c];
        }
    }
}

tutorial::LaunchConfig transpose_launch_config(int rows, int cols) {
    return tutorial::LaunchConfig{dim3(tutorial::ceil_div(cols, kTransposeTile), tutorial::ceil_div(rows, kTransposeTile)),
                                  dim3(kTransposeTile, kTransposeBlockRows)};
}

// 5b: the block reads its tile row by row into shared memory, then writes it out row
// by row of the output, which is column by column of the tile. Both global accesses
// are now coalesced; the column read from shared memory is where the cost moved: the
// 32 floats of a tile column are 32 floats apart, all in the same bank.
__global__ void transpose_shared_kernel(const float* input, float* output, int rows, int cols) {
    __shared__ float tile[kTransposeTile][kTransposeTile];

    const int tile_row = blockIdx.y * kTransposeTile;  // the tile's first input row
    const int tile_col = blockIdx.x * kTransposeTile;  // and first input column
    const int c = tile_col + threadIdx.x;
    for (int j = 0; j < kTransposeTile; j += kTransposeBlockRows) {
        const int r = tile_row + threadIdx.y + j;
        if (r < rows && c < cols) {
            tile[threadIdx.y + j][threadIdx.x] = input[r * cols + c];
        }
    }
    // Each thread writes elements that other threads of the block read.
    __syncthreads();

    // Swap the roles: the block's threads now walk the output tile, whose rows are the
    // input's columns tile_col.. and whose columns are the input's rows tile_row..
    const int out_col = tile_row + threadIdx.x;
    for (int j = 0; j < kTransposeTile; j += kTransposeBlockRows) {
        const int out_row = tile_col + threadIdx.y + j;
        if (out_row < cols && out_col < rows) {
            output[out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

// 5c: 5b with one unused column per tile row. Element [i][k] is at word i * 33 + k, so
// tile column k's 32 elements are in banks (i + k) % 32 for i = 0..31: all different.
__global__ void transpose_padded_kernel(const float* input, float* output, int rows, int cols) {
    __shared__ float tile[kTransposeTile][kTransposeTile + 1];

    const int tile_row = blockIdx.y * kTransposeTile;
    const int tile_col = blockIdx.x * kTransposeTile;
    const int c = tile_col + threadIdx.x;
    for (int j = 0; j < kTransposeTile; j += kTransposeBlockRows) {
        const int r = tile_row + threadIdx.y + j;
        if (r < rows && c < cols) {
            tile[threadIdx.y + j][threadIdx.x] = input[r * cols + c];
        }
    }
    __syncthreads();

    const int out_col = tile_row + threadIdx.x;
    for (int j = 0; j < kTransposeTile; j += kTransposeBlockRows) {
        const int out_row = tile_col + threadIdx.y + j;
        if (out_row < cols && out_col < rows) {
            output[out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

namespace {

using TransposeKernel = void (*)(const float*, float*, int, int);

void launch_transpose(TransposeKernel kernel, const char* kernel_name, const float* input, float* output, int rows,
                      int cols) {
    const tutorial::LaunchConfig launch = transpose_launch_config(rows, cols);
    kernel<<<launch.grid, launch.block>>>(input, output, rows, cols);
    CUDA_CHECK_KERNEL(kernel_name);
}

}  // namespace

void transpose_naive(const float* input, float* output, int rows, int cols) {
    tutorial::require_transpose_arguments("transpose_naive", input, output, rows, cols, kTransposeMaxRows);
    launch_transpose(transpose_naive_kernel, "transpose_naive_kernel", input, output, rows, cols);
}

void transpose_shared(const float* input, float* output, int rows, int cols) {
    tutorial::require_transpose_arguments("transpose_shared", input, output, rows, cols, kTransposeMaxRows);
    launch_transpose(transpose_shared_kernel, "transpose_shared_kernel", input, output, rows, cols);
}

void transpose_padded(const float* input, float* output, int rows, int cols) {
    tutorial::require_transpose_arguments("transpose_padded", input, output, rows, cols, kTransposeMaxRows);
    launch_transpose(transpose_padded_kernel, "transpose_padded_kernel", input, output, rows, cols);
}
