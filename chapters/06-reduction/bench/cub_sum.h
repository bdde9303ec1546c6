/// @file cub_sum.h
/// @brief The library row of the benchmark (the project's code, not the student's): the sum a
/// user would call instead of writing the reduction. CUB is a header library that only nvcc
/// compiles, hence the .cu file; linked into the benchmark only.
#pragma once

#include "device_buffer.h"
#include "non_copyable.h"

namespace tutorial::benchmark {

/// @brief cub::DeviceReduce::Sum of floats, its temporary storage allocated once.
class CubSum : NonCopyable {
public:
    explicit CubSum(int max_count);

    /// @brief *sum = input[0] + … + input[count − 1], on the device.
    /// @throws std::invalid_argument for a count outside 1 … the constructor's
    void operator()(const float* input, float* sum, int count);

private:
    int max_count_;
    DeviceBuffer<unsigned char> temporary_;
};

}  // namespace tutorial::benchmark
