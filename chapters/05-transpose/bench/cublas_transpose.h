/// @file cublas_transpose.h
/// @brief The library row of the benchmark (the project's code, not the student's): cuBLAS's
/// out-of-place transpose, the call a user would make instead of writing one. Linked into the
/// benchmark only, which links cuBLAS (mk/bench.mk).
#pragma once

#include "non_copyable.h"

#include <memory>

namespace tutorial::benchmark {

/// @brief cublasSgeam with C = 1·Aᵀ + 0·B, on row-major matrices (cuBLAS is column-major: a
/// row-major rows × cols matrix is its cols × rows transpose).
class CublasTranspose : NonCopyable {
public:
    CublasTranspose();
    ~CublasTranspose();

    /// @brief output (cols × rows, row-major) = the transpose of input (rows × cols, row-major).
    void operator()(const float* input, float* output, int rows, int cols);

private:
    struct Handle;
    std::unique_ptr<Handle> handle_;
};

}  // namespace tutorial::benchmark
