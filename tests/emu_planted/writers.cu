// A planted index bug: a block stages its input in shared memory, then two threads write
// each output element (out[t / 2]), so the result is whichever wrote last. Its twin
// (out[t]) gives every element one writer.
#include "planted.h"

#include "cuda_check.h"

namespace planted {
namespace {

__global__ void staged_copy_kernel(const float* in, float* out, int halve) {
    __shared__ float tile[64];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[halve ? threadIdx.x / 2 : threadIdx.x] = tile[threadIdx.x];
}

}  // namespace

void staged_copy(const float* in, float* out, bool two_writers) {
    staged_copy_kernel<<<1, 64>>>(in, out, two_writers ? 1 : 0);
    CUDA_CHECK_KERNEL("staged_copy_kernel");
}

}  // namespace planted
