// The benchmarks' L2 flush (timing.h says why it reads, then writes).
#include "timing.h"

#include "cuda_check.h"

#include <algorithm>
#include <cstddef>

namespace tutorial::benchmark {

namespace {

// The read must go through L2 like any other, so that it takes every line: plain loads, not
// streaming ones (ld.global.cs may be kept in L2 at the lowest priority and evict nothing).
__global__ void read_to_evict_l2(const uint4* lines, std::size_t count, unsigned* sink) {
    unsigned folded = 0;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const uint4 v = lines[i];
        folded |= v.x | v.y | v.z | v.w;
    }
    // The buffer holds zeros, so nothing is written; nvcc cannot know that and keeps the loads.
    if (folded != 0) *sink = folded;
}

constexpr std::size_t kMinimumEvictBytes = std::size_t{64} << 20;  // in case the driver reports a small or zero L2
constexpr std::size_t kMinimumDirtyBytes = std::size_t{32} << 20;
constexpr int kEvictBlocks = 1024, kEvictThreads = 256;

}  // namespace

// Twice the size of L2, so that the read takes every line whatever the replacement policy.
L2Flush::L2Flush(std::size_t l2_bytes)
    : evict_(std::max(2 * l2_bytes, kMinimumEvictBytes) / sizeof(uint4) * sizeof(uint4)),
      dirty_(std::max(l2_bytes, kMinimumDirtyBytes)),
      sink_(1) {
    CUDA_CHECK(cudaMemset(evict_.data(), 0, evict_.bytes()));
    CUDA_CHECK(cudaDeviceSynchronize());
}

void L2Flush::operator()(std::size_t bytes_written) {
    read_to_evict_l2<<<kEvictBlocks, kEvictThreads>>>(reinterpret_cast<const uint4*>(evict_.data()),
                                                       evict_.bytes() / sizeof(uint4), sink_.data());
    CUDA_CHECK(cudaGetLastError());
    const std::size_t dirty = std::min(bytes_written, dirty_.bytes());
    if (dirty > 0) CUDA_CHECK(cudaMemsetAsync(dirty_.data(), 0, dirty, 0));
}

}  // namespace tutorial::benchmark
