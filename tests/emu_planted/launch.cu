// Kernels for the launch checks and the CUDA built-ins the CPU backend must get right.
#include "planted.h"

#include "cuda_check.h"

#include <chrono>
#include <functional>
#include <thread>
#include <type_traits>

namespace planted {
namespace {

// threadIdx and friends are real unsigned fields, as in CUDA.
static_assert(std::is_same<decltype(threadIdx.x), unsigned int>::value, "threadIdx.x is unsigned int");
static_assert(std::is_same<decltype(blockDim), dim3>::value, "blockDim is a dim3");

__global__ void index_planted(unsigned* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x * blockDim.x + threadIdx.x; }

__global__ void too_much_static_shared_planted(float* out) {
    __shared__ float big[16 * 1024];  // 64 KiB: more than a block may declare
    big[threadIdx.x] = 1.0f;
    out[threadIdx.x] = big[threadIdx.x];
}

__global__ void read_unwritten_shared_planted(float* out_float, unsigned char* out_byte) {
    __shared__ float floats[32];
    __shared__ unsigned char bytes[32];
    *out_float = floats[threadIdx.x];
    *out_byte = bytes[threadIdx.x];
}

__global__ void note_workers_planted(unsigned long long* workers) {
    if (threadIdx.x == 0) {
        workers[blockIdx.x] = std::hash<std::thread::id>()(std::this_thread::get_id());
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

__global__ void count_atomically_planted(int* counter, float* sum) {
    if (threadIdx.x % 2 == 0) {
        atomicAdd(counter, 1);
    } else {
        atomicAdd(&counter[0], 1);
    }
    atomicAdd(sum, 1.0f);
}

__global__ void copy_builtins_planted(unsigned* out) {
    const auto block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const auto thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned* mine = out + 12 * (block * blockDim.x * blockDim.y * blockDim.z + thread);
    const uint3 values[4] = {threadIdx, blockIdx, blockDim, gridDim};
    for (int i = 0; i < 4; ++i) {
        mine[3 * i] = values[i].x;
        mine[3 * i + 1] = values[i].y;
        mine[3 * i + 2] = values[i].z;
    }
    if (block == 0 && thread == 0) printf("thread (%u,%u,%u) of block (%u,%u,%u) says hello\n", threadIdx.x, threadIdx.y, threadIdx.z, blockIdx.x, blockIdx.y, blockIdx.z);
}

}  // namespace

cudaError_t launch_index_kernel(unsigned* out, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes) {
    index_planted<<<grid, block, dynamic_shared_bytes>>>(out);
    const cudaError_t launch = cudaGetLastError();
    return launch != cudaSuccess ? launch : cudaDeviceSynchronize();
}

const void* index_kernel() { return reinterpret_cast<const void*>(&index_planted); }

cudaError_t launch_too_much_static_shared() {
    too_much_static_shared_planted<<<1, 32>>>(nullptr);
    return cudaGetLastError();
}

void read_unwritten_shared(float* out_float, unsigned char* out_byte) {
    read_unwritten_shared_planted<<<1, 1>>>(out_float, out_byte);
    CUDA_CHECK_KERNEL("read_unwritten_shared_planted");
}

void note_workers(unsigned long long* workers, unsigned blocks) {
    note_workers_planted<<<blocks, 32>>>(workers);
    CUDA_CHECK_KERNEL("note_workers_planted");
}

void count_atomically(int* counter, float* sum, unsigned blocks) {
    count_atomically_planted<<<blocks, 256>>>(counter, sum);
    CUDA_CHECK_KERNEL("count_atomically_planted");
}

void copy_builtins(unsigned* out, dim3 grid, dim3 block) {
    copy_builtins_planted<<<grid, block>>>(out);
    CUDA_CHECK_KERNEL("copy_builtins_planted");
}

}  // namespace planted
