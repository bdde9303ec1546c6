#include "validate.h"

#include <stdexcept>

namespace tutorial {

void require_positive(const char* function, const char* name, long long value) {
    if (value < 1) {
        throw std::invalid_argument(std::string(function) + ": argument " + name + " must be at least 1, got " +
                                    std::to_string(value));
    }
}

void require_in_range(const char* function, const char* name, long long value, long long lo, long long hi) {
    if (value < lo || value > hi) {
        throw std::invalid_argument(std::string(function) + ": argument " + name + " must be between " +
                                    std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                                    std::to_string(value));
    }
}

void require_not_null(const char* function, const char* name, const void* pointer) {
    if (pointer == nullptr) {
        throw std::invalid_argument(std::string(function) + ": argument " + name + " is a null pointer");
    }
}

void require_gemm_arguments(const char* function, const float* A, const float* B, const float* C, int M, int N,
                            int K) {
    require_positive(function, "M", M);
    require_positive(function, "N", N);
    require_positive(function, "K", K);
    require_not_null(function, "A", A);
    require_not_null(function, "B", B);
    require_not_null(function, "C", C);
}

}  // namespace tutorial
