// cuBLAS's transpose (cublas_transpose.h); the GEMM chapters' SGEMM is the shared library's, gemm/gemm_benchmark.cpp.
#include "bench/cublas_transpose.h"

#include <cublas_v2.h>

#include <stdexcept>
#include <string>

namespace tutorial::benchmark {

namespace {

void check_cublas(cublasStatus_t status, const char* call) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw std::runtime_error(std::string("cuBLAS error ") + cublasGetStatusName(status) + " (" +
                                 cublasGetStatusString(status) + ") in " + call);
    }
}

}  // namespace

struct CublasTranspose::Handle {
    cublasHandle_t handle = nullptr;
};

CublasTranspose::CublasTranspose() : handle_(std::make_unique<Handle>()) {
    check_cublas(cublasCreate(&handle_->handle), "cublasCreate");
}

CublasTranspose::~CublasTranspose() {
    if (handle_ && handle_->handle != nullptr) cublasDestroy(handle_->handle);
}

void CublasTranspose::operator()(const float* input, float* output, int rows, int cols) {
    // Column-major, the row-major rows × cols input is A, cols × rows with leading dimension
    // cols, and the row-major cols × rows output is C, rows × cols with leading dimension rows:
    // C = Aᵀ. B is not read when beta is 0; cuBLAS still wants a valid leading dimension for it.
    const float alpha = 1.0f, beta = 0.0f;
    check_cublas(cublasSgeam(handle_->handle, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &alpha, input, cols, &beta, output,
                             rows, output, rows),
                 "cublasSgeam");
}

}  // namespace tutorial::benchmark
