/// @file histogram_reference.h
/// @brief Chapter 9's CPU reference (the histogram), the argument checks of its entry
/// points, and the comparison of a kernel's bins with the reference, which says what the
/// wrong bins share: counts lost or added, wrapped at 2^16, moved to other bins, a whole
/// slice of a cluster wrong.
#pragma once

#include "compare.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tutorial {

/// @brief The checks every histogram entry point makes: 1 ≤ num_bins ≤ @p most_bins, no
/// null bins, and no null input unless n = 0.
void require_histogram_arguments(const char* function, const void* input, std::size_t n, const unsigned int* bins,
                                 int num_bins, long long most_bins);

/// @brief bins[v] = how many of @p samples equal v, for v < @p num_bins; larger values
/// are not counted.
std::vector<unsigned int> histogram_reference(const std::vector<std::uint8_t>& samples, int num_bins);
/// @brief The same for 16-bit @p samples: bins[v] = how many equal v, for v < @p num_bins.
std::vector<unsigned int> histogram_reference(const std::vector<std::uint16_t>& samples, int num_bins);

/// @brief What the comparison knows of how the bins were made, to say what went wrong.
struct HistogramContext {
    std::vector<unsigned int> samples;  ///< every sample's value, in input order
    int num_bins = 0;                   ///< bins counted
    int slice = 0;                      ///< bins each block of a cluster owns (9c), 0 for no cluster
    unsigned long long seed = 0;        ///< the seed the samples were made from
    /// 9a: each thread counts the one sample at its index into the global bins (no head,
    /// vectors or tail, no private bins to merge), so the advice names only that.
    bool one_sample_per_thread = false;
    /// Whether @ref head and @ref tail are known: then the report blames the head or the
    /// tail only for a run of exactly their length.
    bool vectors_known = false;
    std::size_t head = 0;  ///< samples before the input's first 16-byte boundary (loaded one by one)
    std::size_t tail = 0;  ///< samples after its last whole 16-byte vector (loaded one by one)
};

/// @brief Compare @p got with @p expected exactly, and explain the difference.
///
/// The report lists the first wrong bins (expected, got, difference), the samples
/// counted against those in the input, and names what the wrong bins share, when they
/// share something: no count at all (the counts never reached the bins), every count
/// right modulo 2^16 or 2^8 (a counter too narrow), the right total in the wrong bins
/// (a wrong owner or offset; the wrong block of a cluster), the first or last samples
/// not counted or counted twice, the same error in every bin (a histogram not zeroed),
/// a bin holding more than there are samples, the samples past num_bins counted in the
/// last bin, or lost counts where samples collide.
ComparisonReport compare_bins(const std::vector<unsigned int>& got, const std::vector<unsigned int>& expected,
                              const HistogramContext& context);

}  // namespace tutorial
