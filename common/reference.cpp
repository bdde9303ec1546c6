#include "reference.h"

#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace tutorial {

double float_sum_error_factor(long long terms) {
    const double unit_roundoff = std::ldexp(1.0, -24);
    const double n_u = static_cast<double>(terms) * unit_roundoff;
    return n_u / (1.0 - n_u);
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

}  // namespace tutorial
