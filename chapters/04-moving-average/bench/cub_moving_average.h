/// @file cub_moving_average.h
/// @brief The library row of the benchmark (the project's code, not the student's): the moving
/// average the way a user would write it with CUB. CUB is a header library that only nvcc
/// compiles, hence the .cu file; linked into the benchmark only.
#pragma once

#include "device_buffer.h"
#include "non_copyable.h"

namespace tutorial::benchmark {

/// @brief The inclusive prefix sums of the input in double (cub::DeviceScan::InclusiveSum,
/// reading the floats through a converting iterator), then one pass of differences,
/// output[i] = (P[i+N-1] − P[i-1]) / N. Double, because float prefix sums over 64 Mi elements
/// would lose the window's digits.
class CubMovingAverage : NonCopyable {
public:
    /// @brief Allocates the prefix sums (8 bytes per element) and CUB's temporary storage for
    /// inputs of up to @p max_size elements.
    explicit CubMovingAverage(int max_size);
    ~CubMovingAverage();

    /// @brief output[i] = mean of input[i … i + window − 1], for i = 0 … size − window.
    /// @throws std::invalid_argument for a size beyond the constructor's or a window outside 1 … size
    void operator()(const float* input, float* output, int size, int window);

private:
    int max_size_;
    DeviceBuffer<double> prefix_;
    DeviceBuffer<unsigned char> temporary_;
};

}  // namespace tutorial::benchmark
