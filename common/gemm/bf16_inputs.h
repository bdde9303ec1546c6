/// @file bf16_inputs.h
/// @brief GEMMs whose inputs are BF16 and whose accumulation and output are FP32 (the
/// tensor-core chapter): their entry points, and how the GEMM machinery's float operands
/// reach them, rounded to BF16 as the CPU reference rounds them.
#pragma once

#include "gemm/gemm_operands.h"  // GemmFunction, InputPrecision

#include <cuda_bf16.h>

#include <functional>
#include <vector>

namespace tutorial {

/// @brief A GEMM entry point with BF16 inputs: gemm(A, B, C, M, N, K) computes C = A·B
/// (row-major; A M×K and B K×N BF16 in device memory, C M×N floats).
using Bf16GemmFunction =
    std::function<void(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K)>;

/// @brief Each value rounded to the nearest BF16 (ties to even, as the GPU's cvt.rn.bf16.f32),
/// as a float: what the CPU reference multiplies when the inputs are BF16.
std::vector<float> rounded_to_bf16(const std::vector<float>& values);

/// @brief Each value rounded to the nearest BF16.
std::vector<__nv_bfloat16> to_bf16(const std::vector<float>& values);

/// @brief The entry point @p gemm called as a float GEMM is: it rounds the float A and B in
/// device memory to BF16 (rounded_to_bf16's rounding, through the host), then runs
/// @p gemm on the BF16 copies. For the tests, demos and profiles, whose operands are
/// floats; run them with InputPrecision::bf16 so that the reference rounds the same way.
GemmFunction with_bf16_inputs(Bf16GemmFunction gemm);

}  // namespace tutorial
