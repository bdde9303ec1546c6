/// @file cuda_check.h
/// @brief Turn CUDA failures into exceptions that say what failed, why and where.
///
/// Every CUDA runtime call in the tutorial goes through CUDA_CHECK, and every kernel
/// launch is followed by CUDA_CHECK_KERNEL, so a failure never passes silently: it
/// throws tutorial::CudaError carrying the CUDA error text, the expression and file:line.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tutorial {

/// @brief A failed CUDA runtime call or kernel launch.
///
/// what() reads like "CUDA error cudaErrorInvalidValue (invalid argument) in
/// cudaMalloc(&ptr, bytes) at common/device_buffer.h:42".
class CudaError : public std::runtime_error {
public:
    /// @param code       the error the runtime returned
    /// @param expression the call or launch that failed, as written in the source
    /// @param file       source file of the call
    /// @param line       source line of the call
    CudaError(cudaError_t code, const std::string& expression, const char* file, int line);

    /// @brief The CUDA error code, for tests that expect a particular failure.
    cudaError_t code() const noexcept { return code_; }

private:
    cudaError_t code_;
};

/// @brief Throw CudaError if @p code is not cudaSuccess. Used by CUDA_CHECK.
void throw_if_cuda_error(cudaError_t code, const char* expression, const char* file, int line);

/// @brief Check the kernel launched just before: its launch configuration and, while
/// synchronous kernel checks are on (the default), its execution.
///
/// Launch errors (too many threads, too much shared memory) are reported by
/// cudaGetLastError() at once. Errors while the kernel runs (an illegal address) only
/// surface at the next synchronisation, which could be far away in unrelated code;
/// synchronising here pins the error on the kernel that caused it. On the GPU it waits at
/// most kernel_time_limit_seconds(); a kernel still running then stops the program with
/// a message that names it and the place of this check.
void check_kernel(const char* kernel_name, const char* file, int line);

/// @brief How long check_kernel() waits for a kernel on the GPU before it stops the
/// program, in seconds: TUTORIAL_TIMEOUT (make's TIMEOUT=) or kDefaultKernelTimeLimitSeconds; 0 is
/// no limit (infinity), as for the CPU backend.
/// An invalid value stops the program with exit status 2 and a message.
double kernel_time_limit_seconds();

/// @brief The time limit of one kernel when TIMEOUT is not given: far more than any
/// chapter's kernel needs, far less than an autograder's patience.
constexpr double kDefaultKernelTimeLimitSeconds = 20.0;

/// @brief The exit status of a program stopped because a kernel ran past the time limit
/// (what the `timeout` command uses too).
constexpr int kKernelTimeLimitExitStatus = 124;

/// @brief Switch the synchronisation in check_kernel() on or off.
///
/// Benchmarks turn it off so that back-to-back launches are timed without a host
/// round trip between them; they synchronise and check once after the timed loop.
void set_synchronous_kernel_checks(bool on) noexcept;

/// @brief Whether check_kernel() synchronises after each launch.
bool synchronous_kernel_checks() noexcept;

/// @brief Whether a CUDA device is there to run kernels.
/// @param why set, when there is none, to what the runtime answered, e.g. "no
///            CUDA-capable device is detected"
bool cuda_device_found(std::string& why);

}  // namespace tutorial

/// @brief Run a CUDA runtime call; throw tutorial::CudaError if it fails.
#define CUDA_CHECK(call) ::tutorial::throw_if_cuda_error((call), #call, __FILE__, __LINE__)

/// @brief Check the launch (and, by default, the execution) of the kernel just launched.
#define CUDA_CHECK_KERNEL(kernel_name) ::tutorial::check_kernel((kernel_name), __FILE__, __LINE__)
