/// @file reference.h
/// @brief What a CPU reference returns: the exact answer and its tolerance.
///
/// Each chapter's CPU reference (in its folder) returns the exact answer (computed in double) together with how far
/// a correct float kernel may be from it, derived from the floating-point error bound
/// of the sum it computes. Tolerances are never a magic constant like 1e-3: too loose
/// and a real bug passes, too tight and a correct kernel fails.
#pragma once

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

}  // namespace tutorial
