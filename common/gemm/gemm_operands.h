/// @file gemm_operands.h
/// @brief The operands of one GEMM on the device, for the GEMM chapters' demos and profiles:
/// a run of a chapter's entry point on them, checked against the CPU reference or not.
#pragma once

#include "compare.h"
#include "device_buffer.h"
#include "reference.h"

#include <cstdint>
#include <functional>

namespace tutorial {

/// @brief A GEMM entry point taking device pointers, called as the chapters' are: gemm(A, B,
/// C, M, N, K) computes C = A·B (row-major, M×K times K×N).
using GemmFunction = std::function<void(const float* A, const float* B, float* C, int M, int N, int K)>;

/// @brief What the kernel multiplies: the floats themselves, or the floats rounded to BF16
/// (the tensor-core chapter, whose entry points take BF16: gemm/bf16_inputs.h). With bf16,
/// the CPU reference rounds A and B the same way before its exact sum, so its tolerance is
/// that of the FP32 accumulation alone: γ_K · Σₖ |A(i,k)|·|B(k,j)|, doubled because the
/// tensor cores' additions may truncate rather than round (gemm_operands.cpp).
enum class InputPrecision { fp32, bf16 };

/// @brief C = A B with A of M x K and B of K x N random floats (from @p seed and
/// @p seed + 1: the profiles pass 1, the same in every chapter, so that they run on the same
/// inputs; the demos pass the run's seed), and C of M x N to write.
struct GemmOperands {
    GemmOperands(int rows, int cols, int depth, std::uint64_t seed, InputPrecision precision = InputPrecision::fp32);

    /// @brief The floating-point operations of one product: a multiply and an add per term.
    double flops() const { return 2.0 * M * N * K; }

    /// @brief One run of @p gemm, an entry point called as the chapters' are, gemm(A, B, C,
    /// M, N, K), on these operands (which must outlive it).
    template <class Gemm>
    std::function<void()> run_of(Gemm gemm) {
        return [this, gemm] { gemm(A.data(), B.data(), C.data(), M, N, K); };
    }

    /// @brief Poison C, run @p gemm once on these operands, and compare C with the CPU
    /// reference (computed at the first call); the report maps wrong elements onto the
    /// kernel's @p tile x @p tile_cols blocks (@p tile x @p tile when @p tile_cols is 0), as
    /// compare_gemm_output's does.
    ComparisonReport run_checked(const GemmFunction& gemm, int tile, int tile_cols = 0);

    int M, N, K;
    DeviceBuffer<float> A, B, C;
    InputPrecision precision;  ///< what the reference multiplies: A and B, or them rounded to BF16

private:
    ExpectedOutput expected_;  // C's elements, empty until run_checked needs them
};

}  // namespace tutorial
