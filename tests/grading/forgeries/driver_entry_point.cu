// whole file
// Solves on the host through a door the object check cannot see through by name alone: the
// wrapper asks the runtime for the driver's copy functions by their names (strings that
// could as well be built at run time), copies A and B back, multiplies on the CPU and copies
// C in. The object check refuses the door itself: no exercise of chapter 1 asks the driver
// for a function.
// expect: calls cudaGetDriverEntryPointByVersion: your exercise asks the CUDA driver for no function by name
#include "naive_gemm.h"

#include "cuda_check.h"
#include "gemm/gemm_reference.h"

#include <cstddef>
#include <vector>

__global__ void naive_gemm_kernel(const float*, const float*, float*, int, int, int) {}

tutorial::LaunchConfig naive_gemm_launch_config(int M, int N) {
    const dim3 block(kNaiveGemmBlock, kNaiveGemmBlock);
    return tutorial::LaunchConfig{dim3(tutorial::ceil_div(N, kNaiveGemmBlock), tutorial::ceil_div(M, kNaiveGemmBlock)), block};
}

namespace {
using ToHost = int (*)(void*, unsigned long long, std::size_t);
using ToDevice = int (*)(unsigned long long, const void*, std::size_t);

template <class F>
F driver_function(const char* name) {
    void* function = nullptr;
    cudaGetDriverEntryPointByVersion(name, &function, 12000, cudaEnableDefault, nullptr);
    return reinterpret_cast<F>(function);
}
}  // namespace

void naive_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    tutorial::require_gemm_arguments("naive_gemm", A, B, C, M, N, K);
    const auto to_host = driver_function<ToHost>("cuMemcpyDtoH_v2");
    const auto to_device = driver_function<ToDevice>("cuMemcpyHtoD_v2");
    if (to_host == nullptr || to_device == nullptr) return;
    std::vector<float> a(static_cast<std::size_t>(M) * K), b(static_cast<std::size_t>(K) * N), c(static_cast<std::size_t>(M) * N);
    to_host(a.data(), reinterpret_cast<unsigned long long>(A), a.size() * sizeof(float));
    to_host(b.data(), reinterpret_cast<unsigned long long>(B), b.size() * sizeof(float));
    for (int row = 0; row < M; ++row) {
        for (int col = 0; col < N; ++col) {
            float sum = 0.0f;
            for (int k = 0; k < K; ++k) sum += a[static_cast<std::size_t>(row) * K + k] * b[static_cast<std::size_t>(k) * N + col];
            c[static_cast<std::size_t>(row) * N + col] = sum;
        }
    }
    to_device(reinterpret_cast<unsigned long long>(C), c.data(), c.size() * sizeof(float));
}
