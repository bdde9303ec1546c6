// Chapter 5: the transpose of a rows x cols float matrix, three ways: straight in
// global memory (5a), through a 32 x 32 shared tile (5b), and through the same tile
// padded to 32 x 33, which has no bank conflicts (5c). Going further (5d): 64 x 64 tiles
// for awkward shapes.
//
// Read README.md in this folder first. Then work through the TODO(chapter5) markers
// below, top to bottom, and run `make chapter5 test` after each one.
//
// output(c, r) = input(r, c): input element r * cols + c goes to output element
// c * rows + r. All three kernels use one launch: 32 x 8 threads per block, one block
// per 32 x 32 tile of the input, each thread moving 4 elements of its tile.
#include "transpose.h"

#include "cuda_check.h"
#include "transpose_reference.h"
#include "validate.h"

// 5a: each thread copies its 4 elements directly. A warp reads 32 consecutive floats
// of an input row (coalesced), but writes them down an output column: 32 addresses
// `rows` floats apart, 32 separate memory transactions.
__global__ void transpose_naive_kernel(const float* input, float* output, int rows, int cols) {
    // TODO(chapter5): this thread's input column `c`: x runs along the columns, one block
    //   per 32 x 32 tile. Return early when c is outside the matrix.

    // TODO(chapter5): the thread's 4 rows of the tile, kTransposeBlockRows apart (the block
    //   has 8 rows of threads for the tile's 32 rows). For each row r inside the matrix,
    //   copy input element (r, c) to output element (c, r): the output has `rows` columns.
}

tutorial::LaunchConfig transpose_launch_config(int rows, int cols) {
    // TODO(chapter5): a kTransposeTile x kTransposeBlockRows block, and a grid of one
    //   block per 32 x 32 tile: grid.x covers the cols columns, grid.y the rows rows,
    //   each rounded up with tutorial::ceil_div.
    (void)rows;
    (void)cols;
    return tutorial::LaunchConfig{dim3(1, 1), dim3(1, 1)};
}

// 5b and 5c: the block moves its 32 x 32 tile of the input through `tile` in shared
// memory, 32 x 32 in 5b and 32 x 33 in 5c (the kernels below declare it): it reads the
// tile row by row, then writes it out row by row of the output, which is column by
// column of the tile. The tile's and the pointers' types are template parameters (the
// kernels' own), so that the CPU backend keeps checking and counting every access.
template <class Tile, class Input, class Output>
__device__ __forceinline__ void transpose_through_tile(Tile& tile, Input input, Output output, int rows, int cols) {
    // TODO(chapter5): the input row and column of the tile's first element, `tile_row`
    //   and `tile_col`, from the block's place in the grid.
    (void)tile, (void)input, (void)output, (void)rows, (void)cols;

    // TODO(chapter5): load the tile along input rows, as 5a reads: thread (x, y) fills
    //   tile row y + j, column x, for j = 0, 8, 16, 24, from the input element at that
    //   place of the tile, skipping elements outside the matrix.

    // TODO(chapter5): wait until the whole tile is loaded: each thread is about to write
    //   out elements that other threads loaded.

    // TODO(chapter5): write the tile out along output rows, so that a warp's stores are
    //   consecutive in the output: the output tile's rows are the input tile's columns, so
    //   swap the roles of the block's x and y in the output's coordinates, and read the tile
    //   transposed. Skip elements outside the output (cols rows, rows columns).
}

// 5b: a 32 x 32 tile. Both global accesses are now coalesced; the column read from
// shared memory is where the cost moved: the 32 floats of a tile column are 32 floats
// apart, all in the same bank.
__global__ void transpose_shared_kernel(const float* input, float* output, int rows, int cols) {
    // TODO(chapter5): the tile, kTransposeTile x kTransposeTile floats in shared memory,
    //   and the copy through it (transpose_through_tile, above).
}

// 5c: 5b with one unused column per tile row. Element [i][k] is at word i * 33 + k, so
// tile column k's 32 elements are in banks (i + k) % 32 for i = 0..31: all different.
__global__ void transpose_padded_kernel(const float* input, float* output, int rows, int cols) {
    // TODO(chapter5): 5b again, with one change: the tile has one column more than the
    //   tile's width. The extra column is never used; it shifts each tile row by one bank
    //   (the lesson explains why).
}

// ---- 5d (going further): awkward shapes at copy speed ------------------------------------
// A 64 x 64 tile of the output per block of 32 x 8 threads, each thread 16 of its elements;
// the tile is padded to 65 columns: element [i][k] is in bank (i * 65 + k) % 32 =
// (i + k) % 32, so a warp reading column k of rows x = 0..31 (or 32..63) touches 32
// different banks, as in 5c.
//
// Every output row of the tile starts on a 32-byte sector boundary of the output. With an
// odd number of rows, output row r starts at element r * rows, at a different place in its
// sector on each row, so a tile whose columns all start at the same column would share a
// partly written sector with its neighbour on almost every row; the GPU then writes that
// sector to DRAM in two parts. Instead, output row r of the tile covers the 64 columns that
// end before the same point of the next tile, shifted left by `shift` = (r * rows +
// first_column) % 8 elements to start on a sector: the tile's rows are sheared, and the
// block loads the kWideTileInputRows = 64 + 8 input rows any of them may need.
constexpr int kSectorFloats = 8;                                                     // floats per 32-byte sector
constexpr int kWideTileInputRows = kTransposeWideTile + kSectorFloats;               // 72
[[maybe_unused]] constexpr int kWideLoadRowsPerThread = kWideTileInputRows / kTransposeBlockRows;     // 9
[[maybe_unused]] constexpr int kWideStoreRowsPerThread = kTransposeWideTile / kTransposeBlockRows;    // 8

// Calls visit(e, i, k) for each of this thread's 2 * ROWS places of a tile: e counts them
// from 0, (i, k) is the place's tile row threadIdx.y + 8j (j < ROWS) and column threadIdx.x
// or threadIdx.x + 32.
template <int ROWS, class Visit>
__device__ __forceinline__ void for_each_wide_place(Visit&& visit) {
#pragma unroll
    for (int j = 0; j < ROWS; ++j) {
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            visit(2 * j + half, static_cast<int>(threadIdx.y) + j * kTransposeBlockRows,
                  static_cast<int>(threadIdx.x) + half * kTransposeTile);
        }
    }
}

__global__ void transpose_wide_kernel(const float* input, float* output, int rows, int cols) {
    // TODO(chapter5): 5d, step 1 (going further). The padded tile: kWideTileInputRows input
    //   rows, one column more than kTransposeWideTile, as 5c's. The block's output columns
    //   (input rows) start at first_column, kTransposeWideTile of them per blockIdx.y, less
    //   the shift of each row; so it loads from kSectorFloats input rows before
    //   first_column (negative for the first blocks), and kTransposeWideTile input columns
    //   per blockIdx.x. And
    //   whether every place it loads lies inside the matrix: the same answer for every
    //   thread of the block, so branching on it costs no divergence.

    // TODO(chapter5): 5d, step 2. Load the thread's 18 places
    //   (for_each_wide_place<kWideLoadRowsPerThread>): place (i, k) of the tile is element
    //   (tile_row + i, tile_col + k) of the input. A whole tile first reads all of them into
    //   registers (no checks: 18 loads in flight), then stores them to the tile; an edge
    //   tile loads each element that is inside the matrix straight into the tile.

    // TODO(chapter5): 5d, step 3. Wait for the whole tile: each thread stores what others loaded.

    // TODO(chapter5): 5d, step 4. Store along output rows
    //   (for_each_wide_place<kWideStoreRowsPerThread>): place (i, k) is the k-th element of
    //   output row tile_col + i in this block's sheared window, which starts `shift`
    //   columns before first_column, so that it starts on a sector (which element does
    //   that shift make the window start at?). Which input row, so which tile row, holds
    //   that output column? An edge tile skips what is outside the cols x rows output.
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

void transpose_wide(const float* input, float* output, int rows, int cols) {
    tutorial::require_transpose_arguments("transpose_wide", input, output, rows, cols, kTransposeMaxRows);
    // A block's output columns start up to kSectorFloats - 1 before its 64: the last row of
    // blocks must reach column rows - 1 even when its rows are shifted the most.
    const dim3 grid(tutorial::ceil_div(cols, kTransposeWideTile),
                    tutorial::ceil_div(rows + kSectorFloats - 1, kTransposeWideTile));
    transpose_wide_kernel<<<grid, dim3(kTransposeTile, kTransposeBlockRows)>>>(input, output, rows, cols);
    CUDA_CHECK_KERNEL("transpose_wide_kernel");
}
