// The moving average with CUB (cub_moving_average.h): a header library that only nvcc compiles.
#include "bench/cub_moving_average.h"

#include "cuda_check.h"

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <stdexcept>
#include <string>

namespace tutorial::benchmark {

namespace {

struct ToDouble {
    __host__ __device__ double operator()(float x) const { return static_cast<double>(x); }
};

using DoubleInput = thrust::transform_iterator<ToDouble, const float*>;

std::size_t scan_storage_bytes(int max_size) {
    std::size_t bytes = 0;
    CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, DoubleInput(static_cast<const float*>(nullptr), ToDouble{}),
                                             static_cast<double*>(nullptr), max_size));
    return bytes;
}

// The one pass after the scan: each output is the difference of two prefix sums, rounded
// once to float. prefix[-1] is 0: the first window's sum is prefix[window - 1] itself.
__global__ void differences_of_prefix_sums(const double* prefix, float* output, int outputs, int window) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= outputs) return;
    const double before = i > 0 ? prefix[i - 1] : 0.0;
    output[i] = static_cast<float>((prefix[i + window - 1] - before) / window);
}

}  // namespace

CubMovingAverage::CubMovingAverage(int max_size)
    : max_size_(max_size), prefix_(static_cast<std::size_t>(max_size)), temporary_(scan_storage_bytes(max_size)) {}

CubMovingAverage::~CubMovingAverage() = default;

void CubMovingAverage::operator()(const float* input, float* output, int size, int window) {
    if (size < 1 || size > max_size_) {
        throw std::invalid_argument("CubMovingAverage: size " + std::to_string(size) + " is outside 1 … " +
                                    std::to_string(max_size_) + " (argument size)");
    }
    if (window < 1 || window > size) {
        throw std::invalid_argument("CubMovingAverage: window " + std::to_string(window) + " is outside 1 … " +
                                    std::to_string(size) + " (argument window)");
    }
    std::size_t bytes = temporary_.size();
    CUDA_CHECK(cub::DeviceScan::InclusiveSum(temporary_.data(), bytes, DoubleInput(input, ToDouble{}), prefix_.data(),
                                             size));
    const int outputs = size - window + 1;
    constexpr int kThreads = 256;
    differences_of_prefix_sums<<<(outputs + kThreads - 1) / kThreads, kThreads>>>(prefix_.data(), output, outputs,
                                                                                  window);
    CUDA_CHECK_KERNEL("differences_of_prefix_sums");
}

}  // namespace tutorial::benchmark
