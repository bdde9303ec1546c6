/// @file tiled_gemm.h
/// @brief Chapter 2's API: C = A·B with TILE×TILE tiles staged in shared memory.
///
/// Shared by your chapters/02-tiled-gemm/tiled_gemm.cu, the reference solution, the
/// tests and the benchmark. You do not need to edit it.
#pragma once

#include "launch_config.h"

/// @brief The tile side used when the caller names none.
constexpr int kDefaultTile = 16;

/// @brief The launch for an M×N matrix C: one @p tile × @p tile block per tile of C.
///
/// As in chapter 1, x runs along the columns (grid.x covers N) and y along the rows.
tutorial::LaunchConfig tiled_gemm_launch_config(int M, int N, int tile);

/// @brief C = A·B for row-major float matrices in GPU memory, any M, N, K ≥ 1.
/// @param A    device pointer to M×K
/// @param B    device pointer to K×N
/// @param C    device pointer to M×N, overwritten
/// @param M    rows of A and C, ≥ 1
/// @param N    columns of B and C, ≥ 1
/// @param K    columns of A and rows of B, ≥ 1
/// @param tile the tile side, a compile-time constant inside the kernel: 16 or 32
/// @throws std::invalid_argument naming the argument for a size < 1, a null pointer or
///         an unsupported tile
/// @throws tutorial::CudaError if the launch or the kernel fails
void tiled_gemm(const float* A, const float* B, float* C, int M, int N, int K, int tile = kDefaultTile);

// ---- 2c: the CUDA Programming Guide's version, on matrix views ------------------------------

/// @brief A view of a row-major float matrix in GPU memory, as the CUDA C++ Programming
/// Guide's shared-memory GEMM defines it.
///
/// Element (row, col) is at `elements[row * stride + col]`. The stride (the distance
/// between the starts of two consecutive rows) may exceed the width: then the view is a
/// sub-matrix of a larger matrix, shared with it, not copied. A whole matrix is the view
/// with `stride == width`.
struct Matrix {
    int width;        ///< columns of the view, ≥ 1
    int height;       ///< rows of the view, ≥ 1
    int stride;       ///< elements from one row's start to the next's, ≥ width
    float* elements;  ///< device pointer to element (0, 0) of the view
};

/// @brief The block side of matrix_view_gemm, as the Programming Guide's BLOCK_SIZE.
constexpr int kMatrixViewBlock = 16;

/// @brief The launch for the view C: one kMatrixViewBlock² block per block-sized
/// sub-matrix of C, x along its columns.
tutorial::LaunchConfig matrix_view_gemm_launch_config(Matrix C);

/// @brief C = A·B on matrix views (variant 2c): the Programming Guide's kernel, made
/// correct for any size.
///
/// Only the elements inside the view C are written; the rest of the matrix it lies in is
/// left untouched. The views may have any stride ≥ their width.
/// @param A the left factor, A.height × A.width
/// @param B the right factor, with B.height == A.width
/// @param C the product, with C.height == A.height and C.width == B.width; overwritten
/// @throws std::invalid_argument naming the argument (for example "C.stride") for a size
///         < 1, a stride below the width, a null pointer or sizes that do not fit
/// @throws tutorial::CudaError if the launch or the kernel fails
void matrix_view_gemm(Matrix A, Matrix B, Matrix C);
