/// @file gemm_reference.h
/// @brief What every GEMM chapter checks against: the CPU reference of C = A·B, the
/// comparison of a kernel's C with it, and the argument checks of a GEMM entry point.
#pragma once

#include "compare.h"
#include "reference.h"

#include <vector>

namespace tutorial {

/// @brief The checks every GEMM entry point makes: M, N, K ≥ 1 and no null matrix.
void require_gemm_arguments(const char* function, const float* A, const float* B, const float* C, int M, int N,
                            int K);

/// @brief C = A·B for row-major A (M×K), B (K×N), C (M×N).
///
/// Accumulates in double; the tolerance of C(i,j) is γ_K · Σₖ |A(i,k)|·|B(k,j)|.
ExpectedOutput gemm_reference(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K);

/// @brief Compare a kernel's C (M×N, downloaded) with gemm_reference()'s @p expected, within
/// each element's tolerance. The report maps the wrong elements onto the kernel's
/// @p tile × @p tile_cols blocks (@p tile × @p tile when @p tile_cols is 0) and names the
/// run's seed.
ComparisonReport compare_gemm_output(const std::vector<float>& C, const ExpectedOutput& expected, int M, int N,
                                     int tile, int tile_cols = 0);

}  // namespace tutorial
