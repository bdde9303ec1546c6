/// @file transpose_reference.h
/// @brief Chapter 5's CPU reference (the transpose) and the argument checks of its entry
/// points.
#pragma once

#include "compare.h"
#include "reference.h"

#include <vector>

namespace tutorial {

/// @brief The checks every transpose entry point makes: rows and cols ≥ 1, rows ≤
/// @p max_rows (what the grid can cover), at most 2³¹ − 1 elements (so that an int
/// indexes any of them), no null matrix, and an output that is not the input (the
/// transpose is out of place: in place, blocks would overwrite what others still read).
void require_transpose_arguments(const char* function, const float* input, const float* output, int rows,
                                 int cols, int max_rows);

/// @brief The transpose of the row-major rows × cols matrix @p input: the cols × rows
/// matrix whose element (c, r) is input(r, c).
///
/// A transpose moves bits and computes nothing, so every tolerance is 0: the output
/// must equal the input's element exactly.
/// @throws std::invalid_argument if @p input does not hold rows·cols elements
ExpectedOutput transpose_reference(const std::vector<float>& input, int rows, int cols);

/// @brief Compare a kernel's output (cols × rows, downloaded) with transpose_reference()'s
/// @p expected for a rows × cols input. The report maps the wrong elements onto the
/// kernel's @p tile × @p tile blocks and names the run's seed.
ComparisonReport compare_transpose_output(const std::vector<float>& output, const ExpectedOutput& expected, int rows,
                                          int cols, int tile);

}  // namespace tutorial
