// CUB's histogram (cub_histogram.h): a header library that only nvcc compiles.
#include "bench/cub_histogram.h"

#include "cuda_check.h"

#include <cub/device/device_histogram.cuh>

#include <algorithm>

namespace tutorial::benchmark {

namespace {

// One call of HistogramEven: with storage null it only sets storage_bytes.
template <class Sample>
cudaError_t histogram_even(void* storage, std::size_t& storage_bytes, const Sample* input, unsigned int* bins,
                           int num_bins, std::size_t n) {
    // Levels are ints: an 8-bit sample's upper level, 256, does not fit its own type.
    return cub::DeviceHistogram::HistogramEven(storage, storage_bytes, input, bins, num_bins + 1, 0, num_bins,
                                               static_cast<long long>(n));
}

}  // namespace

CubHistogram::CubHistogram(std::size_t n, int sample_bytes, int num_bins) : n_(n), num_bins_(num_bins) {
    std::size_t bytes8 = 0, bytes16 = 0;
    if (sample_bytes == 1) {
        CUDA_CHECK(histogram_even<std::uint8_t>(nullptr, bytes8, nullptr, nullptr, num_bins, n));
    } else {
        CUDA_CHECK(histogram_even<std::uint16_t>(nullptr, bytes16, nullptr, nullptr, num_bins, n));
    }
    storage_bytes_ = std::max<std::size_t>(1, std::max(bytes8, bytes16));
    CUDA_CHECK(cudaMalloc(&storage_, storage_bytes_));
}

CubHistogram::~CubHistogram() {
    if (storage_ != nullptr) {
        cudaFree(storage_);
    }
}

void CubHistogram::run(const std::uint8_t* input, unsigned int* bins) const {
    std::size_t bytes = storage_bytes_;
    CUDA_CHECK(histogram_even(storage_, bytes, input, bins, num_bins_, n_));
}

void CubHistogram::run(const std::uint16_t* input, unsigned int* bins) const {
    std::size_t bytes = storage_bytes_;
    CUDA_CHECK(histogram_even(storage_, bytes, input, bins, num_bins_, n_));
}

}  // namespace tutorial::benchmark
