/// @file cub_histogram.h
/// @brief The library row of the benchmark (the project's code, not the student's): the
/// histogram a user would call instead of writing one, CUB's cub::DeviceHistogram::HistogramEven,
/// timed beside the chapter's kernels. Compiled by nvcc, linked into the benchmark only.
#pragma once

#include "non_copyable.h"

#include <cstddef>
#include <cstdint>

namespace tutorial::benchmark {

/// @brief CUB's even-width histogram with its temporary storage, sized once.
///
/// Bin v counts the samples equal to v, for v < num_bins (levels 0, 1, …, num_bins:
/// num_bins + 1 levels, lower level 0, upper level num_bins); samples outside are
/// dropped, as in the chapter's functions.
class CubHistogram : NonCopyable {
public:
    /// @brief Size the temporary storage for @p n samples of @p sample_bytes (1 or 2) bytes into
    /// @p num_bins bins. @throws tutorial::CudaError if CUB or the allocation fails
    CubHistogram(std::size_t n, int sample_bytes, int num_bins);
    ~CubHistogram();

    /// @brief bins = the histogram of input[0 … n − 1], enqueued on the default stream.
    void run(const std::uint8_t* input, unsigned int* bins) const;
    /// @copydoc run(const std::uint8_t*, unsigned int*) const
    void run(const std::uint16_t* input, unsigned int* bins) const;

private:
    std::size_t n_;
    int num_bins_;
    void* storage_ = nullptr;
    std::size_t storage_bytes_ = 0;
};

}  // namespace tutorial::benchmark
