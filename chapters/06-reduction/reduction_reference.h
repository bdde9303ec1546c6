/// @file reduction_reference.h
/// @brief Chapter 6's CPU reference (the sum, with its error bound) and the argument
/// checks of its entry points.
#pragma once

#include "reference.h"

#include <vector>

namespace tutorial {

/// @brief The checks every reduction entry point makes: n ≥ 1 and no null input, sum
/// or workspace.
void require_reduce_arguments(const char* function, const float* input, const float* sum, int n,
                              const float* workspace);

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
