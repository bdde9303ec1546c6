// Chapter 4: the simple moving average, three ways: from global memory (4a), through
// the read-only data cache (4b), and from a dynamically sized shared-memory window (4c).
//
// Read README.md in this folder first. Then work through the TODO(chapter4) markers
// below, top to bottom, and run `make chapter4 test` after each one.
//
// output[i] = (input[i] + ... + input[i + window - 1]) / window, for the
// size - window + 1 values of i. One thread computes one output.
#include "moving_average.h"

#include "cuda_check.h"
#include "moving_average_reference.h"
#include "validate.h"

// 4a: each thread reads its whole window from global memory.
__global__ void moving_average_naive_kernel(const float* input, float* output, int size, int window) {
    // TODO(chapter4): this thread's output index i, and an early return unless
    //   i <= size - window (there are size - window + 1 outputs).

    // TODO(chapter4): sum input[i] .. input[i + window - 1] in a float, then store
    //   sum / window in output[i].
}

tutorial::LaunchConfig moving_average_launch_config(int size, int window) {
    // TODO(chapter4): kMovingAverageBlock threads per block (dim3(kMovingAverageBlock)),
    //   and enough blocks for the size - window + 1 outputs (tutorial::ceil_div).
    (void)size;
    (void)window;
    return tutorial::LaunchConfig{dim3(1), dim3(1)};
}

void moving_average_naive(const float* input, float* output, int size, int window) {
    tutorial::require_moving_average_arguments("moving_average_naive", input, output, size, window);
    const tutorial::LaunchConfig launch = moving_average_launch_config(size, window);
    moving_average_naive_kernel<<<launch.grid, launch.block>>>(input, output, size, window);
    CUDA_CHECK_KERNEL("moving_average_naive_kernel");
}

// 4b: the same loop, with the pointers marked so that the compiler may load the input
// through the read-only data cache.
__global__ void moving_average_readonly_kernel(const float* input, float* output, int size, int window) {
    // TODO(chapter4): mark the parameters `const float* __restrict__ input` and
    //   `float* __restrict__ output`: a promise that nothing else reads or writes them
    //   while the kernel runs. Then write the body of 4a again.
}

void moving_average_readonly(const float* input, float* output, int size, int window) {
    tutorial::require_moving_average_arguments("moving_average_readonly", input, output, size, window);
    const tutorial::LaunchConfig launch = moving_average_launch_config(size, window);
    moving_average_readonly_kernel<<<launch.grid, launch.block>>>(input, output, size, window);
    CUDA_CHECK_KERNEL("moving_average_readonly_kernel");
}

// 4c: each block loads the span of the input its outputs read, once, into shared memory
// sized at launch time.
__global__ void moving_average_shared_kernel(const float* input, float* output, int size, int window) {
    // TODO(chapter4): declare the dynamic shared array: extern __shared__ float cache[];
    //   Its size is the third launch parameter, set in moving_average_shared() below.

    // TODO(chapter4): the block's first output `first` = blockIdx.x * blockDim.x. Its
    //   outputs read inputs first .. first + blockDim.x + window - 2: blockDim.x of its
    //   own and a halo of window - 1 after them. Load that span into cache[0], cache[1],
    //   ... in a loop: thread t loads elements t, t + blockDim.x, t + 2 * blockDim.x, ...
    //   (the span is longer than the block, many times longer when the window is). Stop
    //   at the end of the input, size - first elements.

    // TODO(chapter4): wait until the whole span is loaded.

    // TODO(chapter4): as in 4a, but reading the window from cache, starting at
    //   cache[threadIdx.x]. The early return for threads past the last output comes here,
    //   after the barrier, not before the loads.
}

std::size_t moving_average_shared_bytes(int window) {
    // TODO(chapter4): the bytes of shared memory a block's span needs:
    //   (kMovingAverageBlock + window - 1) floats. Compute in std::size_t, not int: the
    //   tests ask for windows up to 2 billion.
    (void)window;
    return 0;
}

namespace {

// Allows moving_average_shared_kernel to use `bytes` of dynamic shared memory per block.
void allow_shared_memory(std::size_t bytes) {
    // TODO(chapter4): up to kSharedMemoryWithoutOptIn bytes (48 KB), there is nothing to
    //   do. Past it:
    //   1. find the GPU's limit: cudaGetDevice(&device), then cudaDeviceGetAttribute(&limit,
    //      cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    //   2. tutorial::require_shared_memory_fits("moving_average_shared", bytes, limit)
    //      throws a clear error when the request is more than that;
    //   3. opt in: cudaFuncSetAttribute(moving_average_shared_kernel,
    //      cudaFuncAttributeMaxDynamicSharedMemorySize, bytes).
    //   Wrap each CUDA call in CUDA_CHECK.
    (void)bytes;
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
