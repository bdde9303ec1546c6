#include "gemm/gemm_reference.h"

#include "validate.h"

#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace tutorial {

void require_gemm_arguments(const char* function, const float* A, const float* B, const float* C, int M, int N,
                            int K) {
    require_positive(function, "M", M);
    require_positive(function, "N", N);
    require_positive(function, "K", K);
    require_not_null(function, "A", A);
    require_not_null(function, "B", B);
    require_not_null(function, "C", C);
}

ExpectedOutput gemm_reference(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K) {
    const auto m = static_cast<std::size_t>(M), n = static_cast<std::size_t>(N), k = static_cast<std::size_t>(K);
    if (A.size() != m * k || B.size() != k * n) {
        throw std::invalid_argument("gemm_reference: A must hold M*K and B K*N elements");
    }
    const double gamma = float_sum_error_factor(K);
    ExpectedOutput out{std::vector<double>(m * n, 0.0), std::vector<double>(m * n, 0.0)};
    // i-k-j order walks B and C row by row, which keeps the reference fast enough
    // for the 512³ test case on a laptop.
    for (std::size_t i = 0; i < m; ++i) {
        double* value = &out.value[i * n];
        double* magnitude = &out.tolerance[i * n];
        for (std::size_t p = 0; p < k; ++p) {
            const double a = A[i * k + p];
            const float* b_row = &B[p * n];
            for (std::size_t j = 0; j < n; ++j) {
                value[j] += a * b_row[j];
                magnitude[j] += std::fabs(a * b_row[j]);
            }
        }
        for (std::size_t j = 0; j < n; ++j) {
            magnitude[j] *= gamma;
        }
    }
    return out;
}

ComparisonReport compare_gemm_output(const std::vector<float>& C, const ExpectedOutput& expected, int M, int N,
                                     int tile, int tile_cols) {
    return compare_with_tolerance(C, expected, output_layout("C", M, N, tile, tile_cols > 0 ? tile_cols : tile));
}

}  // namespace tutorial
