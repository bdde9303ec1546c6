/// @file cublas_gemm.h
/// @brief What the GEMM benchmarks share (gemm_benchmark.cpp, FP32; bf16_gemm_benchmark.cpp,
/// BF16 inputs): cuBLAS called on row-major matrices, and which rows of C are checked, and how.
#pragma once

#include "compare.h"
#include "non_copyable.h"
#include "random.h"

#include <cublas_v2.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace tutorial::benchmark::cublas_gemm {

/// @brief The largest size whose reference is computed in full: 1024³ multiply-adds in double
/// take about a second; 4096³ would take over a minute. Beyond it, kSampledRows rows of C.
constexpr int kFullReferenceLimit = 1024;
/// @brief How many rows of C, spread evenly, are checked beyond kFullReferenceLimit.
constexpr int kSampledRows = 64;

/// @brief Throws a std::runtime_error naming @p call and cuBLAS's status when it failed.
inline void check(cublasStatus_t status, const char* call) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw std::runtime_error(std::string("cuBLAS error ") + cublasGetStatusName(status) + " (" +
                                 cublasGetStatusString(status) + ") in " + call);
    }
}

/// @brief The rows of an M-row C that the benchmark checks against the reference.
inline std::vector<int> rows_to_check(int M) {
    std::vector<int> rows;
    if (M <= kFullReferenceLimit) {
        for (int r = 0; r < M; ++r) rows.push_back(r);
    } else {
        for (int i = 0; i < kSampledRows; ++i) {
            rows.push_back(static_cast<int>(static_cast<long long>(i) * (M - 1) / (kSampledRows - 1)));
        }
    }
    return rows;
}

/// @brief The report of C's @p rows (all of C, or those rows_to_check chose) against @p expected,
/// their reference; empty when they match. @p C is the whole size × size result.
inline std::string check_rows(const std::vector<float>& C, const std::vector<int>& rows, int size,
                              const ExpectedOutput& expected) {
    std::vector<float> got;
    got.reserve(rows.size() * static_cast<std::size_t>(size));
    for (int r : rows) {
        got.insert(got.end(), C.begin() + static_cast<std::ptrdiff_t>(r) * size,
                   C.begin() + static_cast<std::ptrdiff_t>(r + 1) * size);
    }
    OutputLayout layout;
    layout.name = rows.size() == static_cast<std::size_t>(size)
                      ? std::string("C")
                      : "C (" + std::to_string(rows.size()) + " rows spread from 0 to " + std::to_string(size - 1) + ")";
    layout.rows = static_cast<long long>(rows.size());
    layout.cols = size;
    layout.seed = run_seed();
    return compare_with_tolerance(got, expected, layout).text;
}

/// @brief A cuBLAS handle. Row-major C = A·B: cuBLAS is column-major, where our row-major C is
/// Cᵀ = Bᵀ·Aᵀ, and a row-major matrix read column-major is its transpose, so both calls pass
/// B, then A.
class Handle : NonCopyable {
public:
    /// @param pedantic pure FP32 (CUBLAS_PEDANTIC_MATH): with the default math mode cuBLAS may
    /// use TF32 tensor cores for SGEMM, a different and much faster ceiling than FP32 kernels
    /// reach. The default mode sends BF16 inputs to the tensor cores, as chapter code would.
    explicit Handle(bool pedantic) {
        check(cublasCreate(&handle_), "cublasCreate");
        if (pedantic) check(cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode(CUBLAS_PEDANTIC_MATH)");
    }
    ~Handle() { cublasDestroy(handle_); }

    /// @brief FP32 A, B and C.
    void sgemm(const float* A, const float* B, float* C, int M, int N, int K) {
        const float alpha = 1.0f, beta = 0.0f;
        check(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K, &beta, C, N), "cublasSgemm");
    }
    /// @brief BF16 A and B (passed as CUDA_R_16BF), FP32 C and accumulation.
    void gemm_bf16(const void* A, const void* B, float* C, int M, int N, int K) {
        const float alpha = 1.0f, beta = 0.0f;
        check(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_16BF, N, A, CUDA_R_16BF, K,
                           &beta, C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              "cublasGemmEx (BF16 inputs, FP32 compute)");
    }

private:
    cublasHandle_t handle_ = nullptr;
};

}  // namespace tutorial::benchmark::cublas_gemm
