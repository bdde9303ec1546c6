#include "validate.h"

#include <climits>
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

void require_box_mean_arguments(const char* function, const unsigned char* input, const unsigned char* output,
                                int width, int height, int radius, int max_radius) {
    require_positive(function, "width", width);
    require_positive(function, "height", height);
    if (static_cast<long long>(width) * height > INT_MAX) {
        throw std::invalid_argument(std::string(function) + ": the image is " + std::to_string(width) + " x " +
                                    std::to_string(height) + " pixels, more than the " + std::to_string(INT_MAX) +
                                    " an int can index (arguments width and height)");
    }
    require_in_range(function, "radius", radius, 0, max_radius);
    require_not_null(function, "input", input);
    require_not_null(function, "output", output);
}

void require_moving_average_arguments(const char* function, const float* input, const float* output, int size,
                                      int window) {
    require_positive(function, "size", size);
    require_in_range(function, "window", window, 1, size);
    require_not_null(function, "input", input);
    require_not_null(function, "output", output);
}

// ---- Chapter 5: transpose -----------------------------------------------------------

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

// ---- Chapter 6: reduction -------------------------------------------------------------

void require_reduce_arguments(const char* function, const float* input, const float* sum, int n,
                              const float* workspace) {
    require_positive(function, "n", n);
    require_not_null(function, "input", input);
    require_not_null(function, "sum", sum);
    require_not_null(function, "workspace", workspace);
}

void require_shared_memory_fits(const char* function, std::size_t bytes, std::size_t limit) {
    if (bytes > limit) {
        throw std::invalid_argument(std::string(function) + ": a block needs " + std::to_string(bytes) +
                                    " bytes of shared memory, more than this GPU allows one block: " +
                                    std::to_string(limit) + " bytes (cudaDevAttrMaxSharedMemoryPerBlockOptin)");
    }
}

}  // namespace tutorial
