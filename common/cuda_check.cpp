#include "cuda_check.h"

#include <atomic>

namespace tutorial {

namespace {
std::atomic<bool> synchronous_checks{true};

std::string describe(cudaError_t code, const std::string& expression, const char* file, int line) {
    return std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
           ") in " + expression + " at " + file + ":" + std::to_string(line);
}
}  // namespace

CudaError::CudaError(cudaError_t code, const std::string& expression, const char* file, int line)
    : std::runtime_error(describe(code, expression, file, line)), code_(code) {}

void throw_if_cuda_error(cudaError_t code, const char* expression, const char* file, int line) {
    if (code != cudaSuccess) {
        throw CudaError(code, expression, file, line);
    }
}

void check_kernel(const char* kernel_name, const char* file, int line) {
    const std::string launch = std::string("the launch of ") + kernel_name;
    throw_if_cuda_error(cudaGetLastError(), launch.c_str(), file, line);
    if (synchronous_checks.load(std::memory_order_relaxed)) {
        const std::string run = std::string("the execution of ") + kernel_name;
        throw_if_cuda_error(cudaDeviceSynchronize(), run.c_str(), file, line);
    }
}

void set_synchronous_kernel_checks(bool on) noexcept { synchronous_checks.store(on, std::memory_order_relaxed); }

bool synchronous_kernel_checks() noexcept { return synchronous_checks.load(std::memory_order_relaxed); }

bool cuda_device_found(std::string& why) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        why = cudaGetErrorString(status);
        return false;
    }
    if (count == 0) {
        why = "the driver reports no devices";
        return false;
    }
    return true;
}

}  // namespace tutorial
