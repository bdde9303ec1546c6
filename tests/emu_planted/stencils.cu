// Planted bugs in stencils: a halo loaded one element too far, a halo clamped one pixel
// too far, a dynamic shared buffer without room for the halo, a read before the start.
#include "planted.h"

#include "cuda_check.h"
#include "launch_config.h"

#include <stdexcept>

namespace planted {
namespace {

constexpr int kBlock = 16;
constexpr int kTileSide = kBlock + 2 * kBoxRadius;

template <Halo HALO>
__global__ void box_mean_planted(const unsigned char* in, unsigned char* out, int width, int height) {
    __shared__ unsigned char tile[kTileSide][kTileSide];
    const int left = blockIdx.x * kBlock - kBoxRadius, top = blockIdx.y * kBlock - kBoxRadius;
    // The tile has more pixels than the block has threads: load it in a loop.
    const int last = HALO == Halo::loop_one_too_far ? kTileSide * kTileSide : kTileSide * kTileSide - 1;
    const int right_edge = HALO == Halo::clamp_one_too_far ? width : width - 1;
    for (int i = threadIdx.y * kBlock + threadIdx.x; i <= last; i += kBlock * kBlock) {
        const int x = min(max(left + i % kTileSide, 0), right_edge);
        const int y = min(max(top + i / kTileSide, 0), height - 1);
        tile[i / kTileSide][i % kTileSide] = in[y * width + x];
    }
    __syncthreads();
    const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y * kBlock + threadIdx.y;
    if (x >= width || y >= height) return;
    int sum = 0;
    for (int dy = 0; dy <= 2 * kBoxRadius; ++dy) {
        for (int dx = 0; dx <= 2 * kBoxRadius; ++dx) sum += tile[threadIdx.y + dy][threadIdx.x + dx];
    }
    constexpr int area = (2 * kBoxRadius + 1) * (2 * kBoxRadius + 1);
    out[y * width + x] = static_cast<unsigned char>((sum + area / 2) / area);
}

__global__ void moving_average_planted(const float* in, float* out, int outputs, int window) {
    extern __shared__ float cache[];
    const int first = blockIdx.x * blockDim.x;
    const int inputs = outputs + window - 1;
    for (int i = threadIdx.x; i < static_cast<int>(blockDim.x) + window - 1 && first + i < inputs; i += blockDim.x) {
        cache[i] = in[first + i];
    }
    __syncthreads();
    const int o = first + threadIdx.x;
    if (o >= outputs) return;
    float sum = 0.0f;
    for (int k = 0; k < window; ++k) sum += cache[threadIdx.x + k];
    out[o] = sum / window;
}

__global__ void read_before_start_planted(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i - 1];
}

}  // namespace

void box_mean(const unsigned char* in, unsigned char* out, int width, int height, Halo halo) {
    const dim3 block(kBlock, kBlock), grid(tutorial::ceil_div(width, kBlock), tutorial::ceil_div(height, kBlock));
    switch (halo) {
        case Halo::right: box_mean_planted<Halo::right><<<grid, block>>>(in, out, width, height); break;
        case Halo::loop_one_too_far: box_mean_planted<Halo::loop_one_too_far><<<grid, block>>>(in, out, width, height); break;
        case Halo::clamp_one_too_far: box_mean_planted<Halo::clamp_one_too_far><<<grid, block>>>(in, out, width, height); break;
    }
    CUDA_CHECK_KERNEL("box_mean_planted");
}

void moving_average(const float* in, float* out, int size, int window, bool too_small_buffer, bool opt_in) {
    const int block = 256, outputs = size - window + 1;
    const std::size_t bytes = (too_small_buffer ? block : block + window - 1) * sizeof(float);
    int limit = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    if (bytes > static_cast<std::size_t>(limit)) throw std::invalid_argument("moving_average: window too large");
    // Without the opt-in, the kernel keeps (or goes back to) the default limit of 48 KiB.
    const int allowed = opt_in && bytes > 48 * 1024 ? static_cast<int>(bytes) : 48 * 1024;
    CUDA_CHECK(cudaFuncSetAttribute(moving_average_planted, cudaFuncAttributeMaxDynamicSharedMemorySize, allowed));
    moving_average_planted<<<tutorial::ceil_div(outputs, block), block, bytes>>>(in, out, outputs, window);
    CUDA_CHECK_KERNEL("moving_average_planted");
}

void read_before_start(const float* in, float* out, int n) {
    read_before_start_planted<<<tutorial::ceil_div(n, 64), 64>>>(in, out, n);
    CUDA_CHECK_KERNEL("read_before_start_planted");
}

}  // namespace planted
