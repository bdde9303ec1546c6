// Chapter 4, reference solution: the simple moving average, three ways: from global
// memory (4a), through the read-only data cache (4b), and from a dynamically sized
// shared-memory window (4c).
//
// output[i] = (input[i] + ... + input[i + window - 1]) / window, for the
// size - window + 1 values of i. One thread computes one output.
#include "moving_average.h"

#include "cuda_check.h"
#include "validate.h"

// 4a: each thread reads its whole window from global memory. Neighbouring threads'
// windows overlap in all but one element, so every input element is requested up to
// `window` times; caches catch many of the repeats, but each is still a load instruction.
__global__ void moving_average_naive_kernel(const float* input, float* output, int size, int window) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > size - window) {
        return;
    }
    float sum = 0.0f;
    for (int k = 0; k < window; ++k) {
        sum += input[i + k];
    }
    output[i] = sum / window;
}

tutorial::LaunchConfig moving_average_launch_config(int size, int window) {
    const int outputs = size - window + 1;
    return tutorial::LaunchConfig{dim3(tutorial::ceil_div(outputs, kMovingAverageBlock)), dim3(kMovingAverageBlock)};
}

void moving_average_naive(const float* input, float* output, int size, int window) {
    tutorial::require_moving_average_arguments("moving_average_naive", input, output, size, window);
    const tutorial::LaunchConfig launch = moving_average_launch_config(size, window);
    moving_average_naive_kernel<<<launch.grid, launch.block>>>(input, output, size, window);
    CUDA_CHECK_KERNEL("moving_average_naive_kernel");
}

// 4b: the same loop. `const __restrict__` on the input (and `__restrict__` on the
// output) promises the compiler that nothing writes the input while the kernel runs, so
// it may load it through the read-only data cache (ld.global.nc in the PTX).
__global__ void moving_average_readonly_kernel(const float* __restrict__ input, float* __restrict__ output, int size,
                                               int window) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > size - window) {
        return;
    }
    float sum = 0.0f;
    for (int k = 0; k < window; ++k) {
        sum += input[i + k];
    }
    output[i] = sum / window;
}

void moving_average_readonly(const float* input, float* output, int size, int window) {
    tutorial::require_moving_average_arguments("moving_average_readonly", input, output, size, window);
    const tutorial::LaunchConfig launch = moving_average_launch_config(size, window);
    moving_average_readonly_kernel<<<launch.grid, launch.block>>>(input, output, size, window);
    CUDA_CHECK_KERNEL("moving_average_readonly_kernel");
}

// 4c: the block's outputs first..first + blockDim.x - 1 read the inputs
// first..first + blockDim.x + window - 2: blockDim.x elements of its own and a halo of
// window - 1 after them. The block loads that span once into shared memory, whose size
// is only known at run time (it depends on window), so it is declared `extern` and
// sized by the third launch parameter.
__global__ void moving_average_shared_kernel(const float* input, float* output, int size, int window) {
    extern __shared__ float cache[];

    const int first = blockIdx.x * blockDim.x;
    // The last block's span stops at the end of the input.
    const int span = min(static_cast<int>(blockDim.x) + window - 1, size - first);
    // The span is longer than the block whenever window > 1, and many times longer when
    // window exceeds the block: each thread loads every blockDim.x-th element.
    for (int j = threadIdx.x; j < span; j += blockDim.x) {
        cache[j] = input[first + j];
    }
    // Each thread reads elements that other threads loaded.
    __syncthreads();

    const int i = first + threadIdx.x;
    if (i > size - window) {
        return;
    }
    float sum = 0.0f;
    for (int k = 0; k < window; ++k) {
        sum += cache[threadIdx.x + k];
    }
    output[i] = sum / window;
}

std::size_t moving_average_shared_bytes(int window) {
    // In size_t: for a window near INT_MAX the count overflows an int.
    return (static_cast<std::size_t>(kMovingAverageBlock) + static_cast<std::size_t>(window) - 1) * sizeof(float);
}

namespace {

// A block may use 48 KB of dynamic shared memory as it is. Past that, the kernel must be
// opted in, up to the GPU's own limit; past the limit, no launch can work.
void allow_shared_memory(std::size_t bytes) {
    if (bytes <= kSharedMemoryWithoutOptIn) {
        return;
    }
    int device = 0, limit = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    tutorial::require_shared_memory_fits("moving_average_shared", bytes, static_cast<std::size_t>(limit));
    CUDA_CHECK(cudaFuncSetAttribute(moving_average_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(bytes)));
}

}  // namespace

void moving_average_shared(const float* input, float* output, int size, int window) {
    tutorial::require_moving_average_arguments("moving_average_shared", input, output, size, window);
    const std::size_t bytes = moving_average_shared_bytes(window);
    allow_shared_memory(bytes);
    const tutorial::LaunchConfig launch = moving_average_launch_config(size, window);
    // The third launch parameter: bytes of dynamic shared memory per block, which is
    // what `extern __shared__ float cache[]` gets.
    moving_average_shared_kernel<<<launch.grid, launch.block, bytes>>>(input, output, size, window);
    CUDA_CHECK_KERNEL("moving_average_shared_kernel");
}
