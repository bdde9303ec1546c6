/// @file bf16_gemm_benchmark.h
/// @brief The tensor-core chapter's GEMM benchmark: one square problem with BF16 inputs and
/// FP32 accumulation, its cuBLAS BF16 ceiling, and a checked timing of each variant, BF16
/// kernels and the FP32 chapters' kernels side by side on the same values.
#pragma once

#include "device_buffer.h"
#include "gemm/bf16_inputs.h"  // Bf16GemmFunction
#include "gemm/gemm_operands.h"  // GemmFunction
#include "gemm/gemm_reference.h"
#include "benchmark/session.h"

#include <cuda_bf16.h>

#include <functional>
#include <string>
#include <vector>

namespace tutorial::benchmark {

/// @brief One square GEMM problem, size³, on BF16 inputs, timed against cuBLAS in the same
/// run: cublasGemmEx with BF16 A and B (CUDA_R_16BF), FP32 C and CUBLAS_COMPUTE_32F, the
/// tensor cores' GEMM a user would call. It is both the ceiling and the problem's library row.
///
/// A and B are seeded random floats rounded to BF16, kept in device memory both as BF16 (for
/// the BF16 kernels and cuBLAS) and as the same values in floats (for the FP32 chapters'
/// kernels, time_fp32_kernel()): every row multiplies the same numbers. Each result is
/// checked after timing against the CPU reference of those numbers (every row up to 1024³,
/// 64 rows spread over C beyond), within the FP32 accumulation's error bound, doubled as in
/// gemm/gemm_operands.h.
class Bf16GemmBenchmark {
public:
    /// @param session the run to record into
    /// @param size    M = N = K
    Bf16GemmBenchmark(Session& session, int size);

    /// @brief The problem's label in the results, e.g. "4096 x 4096 x 4096".
    const std::string& problem() const { return problem_; }

    /// @brief Time the BF16 entry point @p gemm and check its result after timing.
    Measurement time_kernel(const std::string& variant, const Bf16GemmFunction& gemm, bool is_baseline = false);

    /// @brief Time the FP32 entry point @p gemm on the same values as floats, and check it
    /// in the same way: an FP32 chapter's kernel beside the tensor cores.
    Measurement time_fp32_kernel(const std::string& variant, const GemmFunction& gemm, bool is_baseline = false);

private:
    WorkToTime work_for(const std::string& variant, const std::function<void()>& run, bool is_baseline);
    std::string check_result() const;

    Session& session_;
    int size_;
    std::string problem_;
    std::vector<int> checked_rows_;  // the rows of C compared with the reference
    ExpectedOutput expected_;        // the reference for those rows
    DeviceBuffer<__nv_bfloat16> A16_, B16_;
    DeviceBuffer<float> A_, B_, C_;
    Measurement ceiling_;
};

}  // namespace tutorial::benchmark
