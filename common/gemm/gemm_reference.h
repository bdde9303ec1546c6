/// @file gemm_reference.h
/// @brief What every GEMM chapter checks against: the CPU reference of C = A·B and
/// the argument checks of a GEMM entry point.
#pragma once

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

}  // namespace tutorial
