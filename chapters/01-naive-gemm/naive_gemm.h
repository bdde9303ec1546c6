/// @file naive_gemm.h
/// @brief Chapter 1's API: C = A·B with one GPU thread per element of C.
///
/// Shared by your chapters/01-naive-gemm/naive_gemm.cu, the reference solution, the
/// tests and the benchmark. You do not need to edit it.
#pragma once

#include "launch_config.h"

/// @brief Side of the square thread block: 16 × 16 = 256 threads.
constexpr int kNaiveGemmBlock = 16;

/// @brief The launch that covers an M×N matrix C with kNaiveGemmBlock² blocks.
///
/// threadIdx.x runs along the columns of C (grid.x covers N), threadIdx.y along the
/// rows (grid.y covers M).
tutorial::LaunchConfig naive_gemm_launch_config(int M, int N);

/// @brief C = A·B for row-major float matrices in GPU memory.
/// @param A device pointer to M×K
/// @param B device pointer to K×N
/// @param C device pointer to M×N, overwritten
/// @param M rows of A and C, ≥ 1
/// @param N columns of B and C, ≥ 1
/// @param K columns of A and rows of B, ≥ 1
/// @throws std::invalid_argument naming the argument for a size < 1 or a null pointer
/// @throws tutorial::CudaError if the launch or the kernel fails
void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K);
