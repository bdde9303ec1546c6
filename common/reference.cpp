#include "reference.h"

#include <cmath>

namespace tutorial {

double float_sum_error_factor(long long terms) {
    const double unit_roundoff = std::ldexp(1.0, -24);
    const double n_u = static_cast<double>(terms) * unit_roundoff;
    return n_u / (1.0 - n_u);
}

}  // namespace tutorial
