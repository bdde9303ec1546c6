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
