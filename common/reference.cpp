#include "reference.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

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

std::vector<std::uint8_t> box_mean_reference(const std::vector<std::uint8_t>& image, int width, int height,
                                             int radius) {
    if (width < 0 || height < 0 || radius < 0) {
        throw std::invalid_argument("box_mean_reference: width, height and radius must not be negative");
    }
    const std::size_t w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
    if (image.size() != w * h) {
        throw std::invalid_argument("box_mean_reference: the image must hold width*height pixels");
    }
    // Clamping acts on the row and the column separately, so the box sum is a sum of
    // row sums: first sum each row's 2R+1 neighbours, then sum 2R+1 of those per column.
    // In int both passes are exact, so this is the same as summing the whole box, only
    // O(R) per pixel instead of O(R²): fast enough for an 8000×8000 image.
    auto clamp = [](long long i, std::size_t n) {
        return static_cast<std::size_t>(std::clamp<long long>(i, 0, static_cast<long long>(n) - 1));
    };
    std::vector<int> row_sums(w * h, 0);
    for (std::size_t y = 0; y < h; ++y) {
        for (std::size_t x = 0; x < w; ++x) {
            int sum = 0;
            for (long long dx = -radius; dx <= radius; ++dx) {
                sum += image[y * w + clamp(static_cast<long long>(x) + dx, w)];
            }
            row_sums[y * w + x] = sum;
        }
    }
    const int area = (2 * radius + 1) * (2 * radius + 1);
    std::vector<std::uint8_t> mean(w * h);
    for (std::size_t y = 0; y < h; ++y) {
        for (std::size_t x = 0; x < w; ++x) {
            int sum = 0;
            for (long long dy = -radius; dy <= radius; ++dy) {
                sum += row_sums[clamp(static_cast<long long>(y) + dy, h) * w + x];
            }
            mean[y * w + x] = static_cast<std::uint8_t>((sum + area / 2) / area);
        }
    }
    return mean;
}

ExpectedOutput moving_average_reference(const std::vector<float>& input, int window) {
    const long long size = static_cast<long long>(input.size());
    if (window < 1 || window > size) {
        throw std::invalid_argument("moving_average_reference: window must be between 1 and the input size (" +
                                    std::to_string(size) + "), got " + std::to_string(window));
    }
    const double gamma = float_sum_error_factor(static_cast<long long>(window) + 1);
    const std::size_t outputs = static_cast<std::size_t>(size - window + 1);
    ExpectedOutput out{std::vector<double>(outputs), std::vector<double>(outputs)};
    // Each window is summed afresh, O(window) per output. A running sum (add the element
    // entering the window, subtract the one leaving) would be O(1), but after
    // 1e30 + 1 − 1e30 it holds 0: the reference must be right for every input.
    for (std::size_t i = 0; i < outputs; ++i) {
        double sum = 0.0, magnitude = 0.0;
        for (int k = 0; k < window; ++k) {
            sum += input[i + k];
            magnitude += std::fabs(input[i + k]);
        }
        out.value[i] = sum / window;
        out.tolerance[i] = gamma * magnitude / window;
    }
    return out;
}

// ---- Chapter 5: transpose -----------------------------------------------------------

ExpectedOutput transpose_reference(const std::vector<float>& input, int rows, int cols) {
    if (rows < 0 || cols < 0 || input.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) {
        throw std::invalid_argument("transpose_reference: the input must hold rows*cols elements");
    }
    const auto r_count = static_cast<std::size_t>(rows), c_count = static_cast<std::size_t>(cols);
    ExpectedOutput out{std::vector<double>(input.size()), std::vector<double>(input.size(), 0.0)};
    for (std::size_t r = 0; r < r_count; ++r) {
        for (std::size_t c = 0; c < c_count; ++c) {
            out.value[c * r_count + r] = input[r * c_count + c];
        }
    }
    return out;
}

// ---- Chapter 6: reduction -------------------------------------------------------------

ExpectedOutput sum_reference(const std::vector<float>& input, long long depth) {
    if (input.empty() || depth < 0) {
        throw std::invalid_argument("sum_reference: the input must not be empty and the depth not negative");
    }
    // Every term is exact in double and the partial sums keep 53 bits: for the 2^28
    // terms of the largest test, the double sum is within 2^28 * 2^-53 * sum(|x|) of
    // exact, far below any float tolerance.
    double sum = 0.0, magnitude = 0.0;
    for (float x : input) {
        sum += x;
        magnitude += std::fabs(x);
    }
    return ExpectedOutput{{sum}, {float_sum_error_factor(depth) * magnitude}};
}

}  // namespace tutorial
