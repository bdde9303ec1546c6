#include "reduction_reference.h"

#include "validate.h"

#include <cmath>
#include <stdexcept>

namespace tutorial {

void require_reduce_arguments(const char* function, const float* input, const float* sum, int n,
                              const float* workspace) {
    require_positive(function, "n", n);
    require_not_null(function, "input", input);
    require_not_null(function, "sum", sum);
    require_not_null(function, "workspace", workspace);
}

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
