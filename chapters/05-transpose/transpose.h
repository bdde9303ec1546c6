/// @file transpose.h
/// @brief Chapter 5's API: the transpose of a float matrix, naive, through a shared
/// tile, and through a padded tile without bank conflicts.
///
/// Shared by your chapters/05-transpose/transpose.cu, the reference solution, the tests
/// and the benchmark. You do not need to edit it.
///
/// Matrices are row-major with no padding between rows: element (r, c) of a matrix with
/// `cols` columns is at index r * cols + c. The transpose of the rows × cols input is the
/// cols × rows output with output(c, r) = input(r, c).
#pragma once

#include "launch_config.h"

/// @brief The side of the square tile a block moves through shared memory: one warp
/// reads 32 consecutive floats (128 bytes) of a row, and writes 32 of a column's.
constexpr int kTransposeTile = 32;

/// @brief Rows of threads per block: a block is kTransposeTile × kTransposeBlockRows =
/// 32 × 8 = 256 threads, so each thread moves kTransposeTile / kTransposeBlockRows = 4
/// elements of its tile. Four independent loads in flight per thread hide more of the
/// memory latency than one.
constexpr int kTransposeBlockRows = 8;

/// @brief The most rows an input may have: the grid's y dimension, one block per 32
/// rows, stops at 65535 blocks (columns have no such limit: grid.x goes to 2³¹ − 1).
constexpr int kTransposeMaxRows = 65535 * kTransposeTile;

/// @brief The launch all three kernels use: kTransposeTile × kTransposeBlockRows
/// threads per block and one block per kTransposeTile × kTransposeTile tile of the
/// input; grid.x covers the input's columns, grid.y its rows.
tutorial::LaunchConfig transpose_launch_config(int rows, int cols);

/// @brief output = inputᵀ, each thread reading along a row of the input and writing
/// along a column of the output straight in global memory.
/// @param input  device pointer to the rows × cols input
/// @param output device pointer to the cols × rows output, overwritten; not @p input
/// @param rows   rows of the input, ≥ 1
/// @param cols   columns of the input, ≥ 1
/// @throws std::invalid_argument naming the argument for a size < 1, more than
///         kTransposeMaxRows rows, a matrix of more than 2³¹ − 1 elements, a null
///         pointer, or an output that is the input
/// @throws tutorial::CudaError if the launch or the kernel fails
void transpose_naive(const float* input, float* output, int rows, int cols);

/// @brief The same, each block staging a 32 × 32 tile in shared memory so that both
/// its global reads and its global writes run along rows. Same arguments, result and
/// errors as transpose_naive().
void transpose_shared(const float* input, float* output, int rows, int cols);

/// @brief The same through a tile padded to 32 × 33, whose columns fall in 32 different
/// shared-memory banks. Same arguments, result and errors as transpose_naive().
void transpose_padded(const float* input, float* output, int rows, int cols);

/// @brief 5d (going further): the side of the square tile transpose_wide() moves. Each warp
/// reads 64 consecutive floats (256 bytes) of an input row: when rows do not start on 128
/// bytes (a matrix 8193 floats wide), the extra sector a misaligned read costs is one in
/// nine, not one in five as for 32 floats.
constexpr int kTransposeWideTile = 64;

/// @brief 5d (going further): the transpose for awkward shapes. The same 32 × 8 blocks,
/// each writing a 64 × 64 tile of the output through a padded shared tile, 16 elements per
/// thread. Each output row of a tile starts on a 32-byte sector of the output (the tile's
/// rows are sheared by up to 7 columns), so no sector is written in parts by two blocks;
/// the block loads the 72 input rows its rows need. A block whose loads lie wholly inside
/// the matrix issues them back to back, with no bounds checks, before it stores any; only
/// the edge tiles check each element, and the test that chooses is the same for the whole
/// block, so no warp diverges on it.
/// Same arguments, result and errors as transpose_naive().
void transpose_wide(const float* input, float* output, int rows, int cols);
