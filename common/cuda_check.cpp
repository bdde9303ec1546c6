#include "cuda_check.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>

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

double kernel_time_limit_seconds() {
    static const double limit = [] {
        // TUTORIAL_TIMEOUT (make sets it from TIMEOUT=), else TIMEOUT, for a program run by hand.
        const char* text = std::getenv("TUTORIAL_TIMEOUT");
        if (text == nullptr || *text == '\0') text = std::getenv("TIMEOUT");
        if (text == nullptr || *text == '\0') {
            return kDefaultKernelTimeLimitSeconds;
        }
        char* end = nullptr;
        const double seconds = std::strtod(text, &end);
        if (end == text || *end != '\0' || !(seconds >= 0) || std::isinf(seconds)) {
            std::fprintf(stderr, "TIMEOUT=%s is not a number of seconds, 0 for no limit (TUTORIAL_TIMEOUT)\n", text);
            std::exit(2);
        }
        // 0 is no limit, as for the CPU backend's EMU_TIMEOUT.
        return seconds == 0 ? std::numeric_limits<double>::infinity() : seconds;
    }();
    return limit;
}

namespace {
// Waits for the kernel just launched, for at most the time limit. A GPU kernel that never
// ends cannot be stopped on its own: the program has to exit, and the operating system
// then ends the kernel. (The CPU backend has its own limit, which fails just the launch.)
void wait_for_kernel(const char* kernel_name, const char* file, int line) {
#ifdef TUTORIAL_EMU
    (void)kernel_name, (void)file, (void)line;
#else
    cudaEvent_t done = nullptr;
    if (cudaEventCreateWithFlags(&done, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventRecord(done) != cudaSuccess) {
        return;  // the synchronisation after this reports the error
    }
    const auto start = std::chrono::steady_clock::now();
    const std::chrono::duration<double> limit(kernel_time_limit_seconds());
    while (cudaEventQuery(done) == cudaErrorNotReady) {
        if (std::chrono::steady_clock::now() - start > limit) {
            std::fprintf(stderr,
                         "\n%s:%d: the kernel %s is still running after %g s, the time limit (TIMEOUT=seconds "
                         "changes it), so the program stops here.\n  A kernel that never ends has a loop whose "
                         "condition never becomes false (a `k += 0`, a `<=` that should be `<`, an unsigned "
                         "counter that never goes below 0), or threads waiting for others that never come: a "
                         "__syncthreads(), cluster.sync() or mbarrier wait that some threads never reach, or a "
                         "__shfl_*_sync() or __syncwarp() whose mask names lanes that never call it.\n",
                         file, line, kernel_name, kernel_time_limit_seconds());
            std::fflush(stderr);
            std::_Exit(kKernelTimeLimitExitStatus);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    cudaEventDestroy(done);
#endif
}
}  // namespace

void check_kernel(const char* kernel_name, const char* file, int line) {
    const std::string launch = std::string("the launch of ") + kernel_name;
    throw_if_cuda_error(cudaGetLastError(), launch.c_str(), file, line);
    if (synchronous_checks.load(std::memory_order_relaxed)) {
        wait_for_kernel(kernel_name, file, line);
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
