// The sum with CUB (cub_sum.h): a header library that only nvcc compiles.
#include "bench/cub_sum.h"

#include "cuda_check.h"

#include <cub/device/device_reduce.cuh>

#include <stdexcept>
#include <string>

namespace tutorial::benchmark {

namespace {

std::size_t reduce_storage_bytes(int max_count) {
    std::size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const float*>(nullptr), static_cast<float*>(nullptr),
                                      max_count));
    return bytes;
}

}  // namespace

CubSum::CubSum(int max_count) : max_count_(max_count), temporary_(reduce_storage_bytes(max_count)) {}

void CubSum::operator()(const float* input, float* sum, int count) {
    if (count < 1 || count > max_count_) {
        throw std::invalid_argument("CubSum: count " + std::to_string(count) + " is outside 1 … " +
                                    std::to_string(max_count_) + " (argument count)");
    }
    std::size_t bytes = temporary_.size();
    CUDA_CHECK(cub::DeviceReduce::Sum(temporary_.data(), bytes, input, sum, count));
}

}  // namespace tutorial::benchmark
