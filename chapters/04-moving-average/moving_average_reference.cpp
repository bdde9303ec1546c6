#include "moving_average_reference.h"

#include "validate.h"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace tutorial {

void require_moving_average_arguments(const char* function, const float* input, const float* output, int size,
                                      int window) {
    require_positive(function, "size", size);
    require_in_range(function, "window", window, 1, size);
    require_not_null(function, "input", input);
    require_not_null(function, "output", output);
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

}  // namespace tutorial
