#include "transpose_reference.h"

#include "validate.h"

#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace tutorial {

void require_transpose_arguments(const char* function, const float* input, const float* output, int rows,
                                 int cols, int max_rows) {
    require_in_range(function, "rows", rows, 1, max_rows);
    require_positive(function, "cols", cols);
    if (static_cast<long long>(rows) * cols > INT_MAX) {
        throw std::invalid_argument(std::string(function) + ": the matrix is " + std::to_string(rows) + " x " +
                                    std::to_string(cols) + " elements, more than the " + std::to_string(INT_MAX) +
                                    " an int can index (arguments rows and cols)");
    }
    require_not_null(function, "input", input);
    require_not_null(function, "output", output);
    if (input == output) {
        throw std::invalid_argument(std::string(function) +
                                    ": argument output is the input; the transpose is out of place, so the output "
                                    "needs its own buffer");
    }
}

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

ComparisonReport compare_transpose_output(const std::vector<float>& output, const ExpectedOutput& expected, int rows,
                                          int cols, int tile) {
    // The output is cols x rows. Tolerance 0 everywhere: a transpose moves bits.
    return compare_with_tolerance(output, expected, output_layout("output", cols, rows, tile, tile));
}

}  // namespace tutorial
