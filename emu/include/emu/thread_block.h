/// @file thread_block.h
/// @brief cooperative_groups::thread_block on the CPU backend: this_thread_block(), with
/// sync(), thread_rank(), size() and the block's indices, as CUDA declares them (static
/// members). sync() is __syncthreads(), checked as every barrier is.
#pragma once

#include <cuda_runtime.h>

namespace cooperative_groups {

/// @brief The threads of the running block.
class thread_block {
public:
    /// @brief Wait for every thread of the block, as __syncthreads() at the caller's line.
    static void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        ::emu::detail::syncthreads(file, line);
    }
    /// @brief Threads in the block.
    static unsigned int size() { return blockDim.x * blockDim.y * blockDim.z; }
    /// @brief Threads in the block.
    static unsigned int num_threads() { return size(); }
    /// @brief The calling thread's linear index in the block (x fastest).
    static unsigned int thread_rank() { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }
    /// @brief blockIdx.
    static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    /// @brief threadIdx.
    static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    /// @brief blockDim.
    static dim3 dim_threads() { return blockDim; }
    /// @brief blockDim.
    static dim3 group_dim() { return blockDim; }
};

/// @brief The running block.
inline thread_block this_thread_block() { return thread_block(); }

/// @brief sync(g) as g.sync().
inline void sync(const thread_block& group, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    group.sync(file, line);
}

}  // namespace cooperative_groups
