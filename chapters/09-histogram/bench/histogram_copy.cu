// The benchmark's copy-only row: 9b's loads, grid and shared memory, without the atomics.
// The loop is count_samples' middle part as the reference solution writes it
// (solutions/09-histogram), kept in step with it by hand.
#include "bench/histogram_copy.h"

#include "cuda_check.h"
#include "histogram.h"

#include <stdexcept>

namespace {

// 9b's grid for n bytes (histogram_shared_blocks), and its shared memory for 256 bins:
// histogram_shared_replicas(256) = 32 copies of 256 counts.
int copy_blocks(std::size_t n) {
    const long long per_block = 16LL * kHistogramBlock;  // one uint4 per thread
    const long long blocks = (static_cast<long long>(n) + per_block - 1) / per_block;
    return static_cast<int>(blocks < 1 ? 1 : blocks < kHistogramMaxBlocks ? blocks : kHistogramMaxBlocks);
}
constexpr std::size_t kSharedBytes = sizeof(unsigned int) * 256 * 32;

__global__ void histogram_copy_kernel(const uint4* vectors_in, long long vectors, unsigned int* per_thread) {
    extern __shared__ unsigned int unused_bins[];  // 9b's histograms: reserved, not used
    (void)unused_bins;
    const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
    unsigned int fold = 0;
    for (long long v = thread; v < vectors; v += 2 * threads) {
        const bool second = v + threads < vectors;
        const uint4 first_vector = vectors_in[v];
        const uint4 second_vector = second ? vectors_in[v + threads] : uint4{0, 0, 0, 0};
        fold ^= first_vector.x ^ first_vector.y ^ first_vector.z ^ first_vector.w;
        fold ^= second_vector.x ^ second_vector.y ^ second_vector.z ^ second_vector.w;
    }
    per_thread[thread] = fold;
}

}  // namespace

std::size_t histogram_copy_threads(std::size_t n) { return static_cast<std::size_t>(copy_blocks(n)) * kHistogramBlock; }

void histogram_copy(const std::uint8_t* input, std::size_t n, unsigned int* per_thread) {
    if (input == nullptr || per_thread == nullptr || reinterpret_cast<std::uintptr_t>(input) % 16 != 0 || n % 16 != 0) {
        throw std::invalid_argument("histogram_copy: needs a 16-byte-aligned input of a multiple of 16 bytes, and an output");
    }
    const int blocks = copy_blocks(n);
    histogram_copy_kernel<<<blocks, kHistogramBlock, kSharedBytes>>>(reinterpret_cast<const uint4*>(input),
                                                                     static_cast<long long>(n / 16), per_thread);
    CUDA_CHECK_KERNEL("histogram_copy_kernel");
}

std::vector<unsigned int> histogram_copy_reference(const std::vector<std::uint8_t>& input, std::size_t threads) {
    std::vector<unsigned int> folds(threads, 0u);
    for (std::size_t v = 0; v < input.size() / 16; ++v) {
        unsigned int fold = 0;
        for (std::size_t b = 0; b < 16; ++b) fold ^= static_cast<unsigned int>(input[16 * v + b]) << (8 * (b % 4));
        folds[v % threads] ^= fold;
    }
    return folds;
}
