/// @file reference.h
/// @brief CPU reference implementations: what every kernel's output must match.
///
/// Each reference returns the exact answer (computed in double) together with how far
/// a correct float kernel may be from it, derived from the floating-point error bound
/// of the sum it computes. Tolerances are never a magic constant like 1e-3: too loose
/// and a real bug passes, too tight and a correct kernel fails.
#pragma once

#include <cstdint>
#include <vector>

namespace tutorial {

/// @brief A reference answer: the value of each output element and the largest error a
/// correct float computation of it can have.
struct ExpectedOutput {
    std::vector<double> value;      ///< exact result, accumulated in double
    std::vector<double> tolerance;  ///< allowed |got − value| for each element
};

/// @brief γ_n = n·u / (1 − n·u) with u = 2⁻²⁴, the unit roundoff of float.
///
/// A float sum of n products, in any order and with or without fused multiply-adds,
/// is within γ_n · Σ|xᵢ·yᵢ| of the exact sum (Higham, Accuracy and Stability of
/// Numerical Algorithms, §3.1). That is the bound the tests allow.
double float_sum_error_factor(long long terms);

/// @brief C = A·B for row-major A (M×K), B (K×N), C (M×N).
///
/// Accumulates in double; the tolerance of C(i,j) is γ_K · Σₖ |A(i,k)|·|B(k,j)|.
ExpectedOutput gemm_reference(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K);

/// @brief The box mean of a row-major 8-bit image: each output pixel is the mean of the
/// (2·radius+1)×(2·radius+1) pixels around it.
///
/// This defines the semantics every box-mean kernel must match exactly:
/// - the sum goes into an int, which cannot overflow (at most 289·255 for radius 8);
/// - the mean is rounded to nearest, `(sum + area/2) / area` with area = (2·radius+1)²;
/// - a neighbour outside the image is replaced by the nearest edge pixel (clamp to edge,
///   or "replicate"), so every output pixel is defined, the border included.
///
/// @throws std::invalid_argument if @p image does not hold width·height pixels, or a
///         size or the radius is negative
std::vector<std::uint8_t> box_mean_reference(const std::vector<std::uint8_t>& image, int width, int height,
                                             int radius);

/// @brief The simple moving average of @p input over a window of @p window elements:
/// output i is (input[i] + … + input[i + window − 1]) / window, for i = 0 … size − window.
///
/// Accumulates in double. A float kernel sums window terms (window − 1 roundings) and
/// divides by window (one more, or two for a multiplication by a rounded 1/window), so
/// the tolerance of output i is γ_{window+1} · Σ|input[i+k]| / window.
///
/// @throws std::invalid_argument unless 1 ≤ window ≤ input.size()
ExpectedOutput moving_average_reference(const std::vector<float>& input, int window);

// ---- Chapter 5: transpose -----------------------------------------------------------

/// @brief The transpose of the row-major rows × cols matrix @p input: the cols × rows
/// matrix whose element (c, r) is input(r, c).
///
/// A transpose moves bits and computes nothing, so every tolerance is 0: the output
/// must equal the input's element exactly.
/// @throws std::invalid_argument if @p input does not hold rows·cols elements
ExpectedOutput transpose_reference(const std::vector<float>& input, int rows, int cols);

// ---- Chapter 6: reduction -------------------------------------------------------------

/// @brief The sum of @p input, and how far a float summation of it may be from it.
///
/// @p depth is the longest chain of additions any one term goes through in the
/// kernel's order: n − 1 for a left-to-right loop, ⌈log₂ n⌉ for a balanced tree, and for
/// a kernel that first loops and then joins in a tree, the loop's length plus the
/// tree's levels. Any summation of that shape is within γ_depth · Σ|xᵢ| of the exact sum
/// (Higham, §4.2), which is the one-element tolerance returned.
/// @throws std::invalid_argument for an empty input or a negative depth
ExpectedOutput sum_reference(const std::vector<float>& input, long long depth);

}  // namespace tutorial
