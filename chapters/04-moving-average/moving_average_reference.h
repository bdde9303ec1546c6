/// @file moving_average_reference.h
/// @brief Chapter 4's CPU reference (the moving average with its error bound) and
/// the argument checks of its entry points.
#pragma once

#include "reference.h"

#include <vector>

namespace tutorial {

/// @brief The checks every moving-average entry point makes: size ≥ 1,
/// 1 ≤ window ≤ size, and no null array.
void require_moving_average_arguments(const char* function, const float* input, const float* output, int size,
                                      int window);

/// @brief The simple moving average of @p input over a window of @p window elements:
/// output i is (input[i] + … + input[i + window − 1]) / window, for i = 0 … size − window.
///
/// Accumulates in double. A float kernel sums window terms (window − 1 roundings) and
/// divides by window (one more, or two for a multiplication by a rounded 1/window), so
/// the tolerance of output i is γ_{window+1} · Σ|input[i+k]| / window.
///
/// @throws std::invalid_argument unless 1 ≤ window ≤ input.size()
ExpectedOutput moving_average_reference(const std::vector<float>& input, int window);

}  // namespace tutorial
