// Chapter 9 tests: the histogram of 8-bit and 16-bit samples, by global atomics (9a), by
// a private histogram per block in shared memory (9b), by a histogram spread over a
// thread block cluster's distributed shared memory (9c), and by the same cluster
// exchanging samples instead of atomics (9d).
// Run them with `make chapterN test`, N being this chapter's number in chapters/registry.
#include "histogram.h"
#include "tutorial_chapter.h"

#include "catch.h"
#include "compare.h"
#include "device_buffer.h"
#include "expect.h"
#include "histogram_reference.h"
#include "random.h"
#include "sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

#ifdef TUTORIAL_EMU
constexpr bool kOnCpuBackend = true;
#else
constexpr bool kOnCpuBackend = false;
#endif

// How the samples are drawn. Uniform: every value as likely (little contention).
// Skewed: value = range · u^4 for u uniform in [0, 1), so low values are far more common
// (a few busy bins). Single: one value, the same for every sample (every thread on one
// bin), drawn at random below num_bins. In bins: uniform below num_bins, so that every bin
// gets samples even when num_bins is small (uniform 16-bit samples into 9 bins are nearly
// all dropped).
enum class Distribution { uniform, skewed, single, in_bins };

const char* name_of(Distribution d) {
    return d == Distribution::uniform  ? "uniform"
           : d == Distribution::skewed ? "skewed"
           : d == Distribution::single ? "one value"
                                       : "uniform below num_bins";
}

struct HistogramCase {
    int sample_bytes;  // 1 or 2
    long long n;
    int num_bins;
    Distribution distribution = Distribution::uniform;
    int offset = 0;  // samples between a 16-byte boundary and the input: misaligns the vector loads
};

std::string label_of(const HistogramCase& c) {
    std::ostringstream out;
    out << c.sample_bytes * 8 << "-bit, n = " << c.n << ", num_bins = " << c.num_bins << ", " << name_of(c.distribution);
    if (c.offset != 0) {
        out << ", starting " << c.offset << " sample" << (c.offset > 1 ? "s" : "") << " past a 16-byte boundary";
    }
    return out.str();
}

// The samples of case @p c, as values (each below 2^(8 · sample_bytes)).
std::vector<unsigned int> samples_of(const HistogramCase& c) {
    const std::uint64_t seed = tutorial::derive_seed(
        tutorial::run_seed(), {c.sample_bytes, c.n, c.num_bins, static_cast<long long>(c.distribution), c.offset});
    const auto count = static_cast<std::size_t>(c.n);
    const unsigned int range = 1u << (8 * c.sample_bytes);
    std::vector<unsigned int> values(count);
    if (c.distribution == Distribution::uniform || c.distribution == Distribution::in_bins) {
        const std::vector<std::uint8_t> bytes = tutorial::random_bytes(count * c.sample_bytes, seed);
        const unsigned int below = c.distribution == Distribution::in_bins ? static_cast<unsigned int>(c.num_bins) : range;
        for (std::size_t i = 0; i < count; ++i) {
            values[i] = (c.sample_bytes == 1 ? bytes[i] : bytes[2 * i] | (bytes[2 * i + 1] << 8)) % below;
        }
    } else if (c.distribution == Distribution::skewed) {
        const std::vector<float> u = tutorial::random_floats(count, seed, 0.0f, 1.0f);
        for (std::size_t i = 0; i < count; ++i) {
            const double x = static_cast<double>(u[i]);
            values[i] = std::min(range - 1, static_cast<unsigned int>(range * (x * x * x * x)));
        }
    } else {
        const std::vector<float> u = tutorial::random_floats(1, seed, 0.0f, 1.0f);
        const unsigned int value = std::min(static_cast<unsigned int>(c.num_bins) - 1,
                                            static_cast<unsigned int>(static_cast<double>(u[0]) * c.num_bins));
        values.assign(count, value);
    }
    return values;
}

template <class Sample>
using HistogramFunction = void (*)(const Sample*, std::size_t, unsigned int*, int);

// Runs @p histogram on the samples of @p c placed c.offset samples past the start of a
// fresh allocation (cudaMalloc gives 256-byte alignment), with the bins poisoned first,
// and compares its bins with the CPU's.
template <class Sample>
tutorial::ComparisonReport run_case(HistogramFunction<Sample> histogram, const HistogramCase& c, int slice) {
    tutorial::HistogramContext context;
    context.samples = samples_of(c);
    context.num_bins = c.num_bins;
    context.slice = slice;
    context.seed = tutorial::run_seed();
    context.one_sample_per_thread = histogram == static_cast<HistogramFunction<Sample>>(histogram_global);
    // The samples before the first 16-byte boundary and after the last whole vector, which
    // the kernels of 9b to 9d load one by one (9a has neither: it loads one sample a thread).
    context.vectors_known = true;
    if (!context.one_sample_per_thread) {
        constexpr std::size_t per_vector = 16 / sizeof(Sample);
        const std::size_t n = context.samples.size(), misaligned = c.offset * sizeof(Sample) % 16;
        context.head = std::min(n, misaligned == 0 ? std::size_t{0} : (16 - misaligned) / sizeof(Sample));
        context.tail = (n - context.head) % per_vector;
    }
    std::vector<Sample> padded(static_cast<std::size_t>(c.offset), Sample(0));
    padded.reserve(padded.size() + context.samples.size());
    for (unsigned int value : context.samples) padded.push_back(static_cast<Sample>(value));
    const std::vector<Sample> samples(padded.begin() + c.offset, padded.end());
    // One sample at least, so that an empty input still has a valid address to pass.
    tutorial::DeviceBuffer<Sample> input(padded.empty() ? std::vector<Sample>{Sample(0)} : padded);
    tutorial::DeviceBuffer<unsigned int> bins(static_cast<std::size_t>(c.num_bins));
    bins.poison();
    histogram(input.data() + c.offset, static_cast<std::size_t>(c.n), bins.data(), c.num_bins);
    return tutorial::compare_bins(bins.download(), tutorial::histogram_reference(samples, c.num_bins), context);
}

// The lengths every step is tried at: empty; one sample; a 16-byte vector of 8-bit
// samples less one, exactly, one more; the same for 16-bit ones; a block's share of one
// vector per thread and one more; a prime.
std::vector<long long> lengths(int sample_bytes) {
    const long long vector = 16 / sample_bytes;
    const long long block = vector * kHistogramBlock;
    return {0, 1, 2, 3, vector - 1, vector, vector + 1, 2 * vector + 5, block, block + 1, 4099, 20011};
}

std::vector<HistogramCase> cases(int sample_bytes, const std::vector<int>& bin_counts, long long grid_full) {
    // The lengths and the misaligned starts draw their samples below num_bins, so that
    // every sample is counted: a few uniform 16-bit samples into 12288 bins are often all
    // dropped, and bins that stay zero test nothing.
    std::vector<HistogramCase> all;
    for (long long n : lengths(sample_bytes)) {
        all.push_back({sample_bytes, n, bin_counts.front(), Distribution::in_bins});
    }
    for (int num_bins : bin_counts) {
        for (Distribution d : {Distribution::uniform, Distribution::skewed, Distribution::single, Distribution::in_bins}) {
            all.push_back({sample_bytes, 30011, num_bins, d});
        }
    }
    // Misaligned starts: 8-bit samples 1, 3 and 15 bytes past a boundary, 16-bit ones 1, 3
    // and 7 samples; with a length that leaves a tail too.
    for (int offset : sample_bytes == 1 ? std::vector<int>{1, 3, 15} : std::vector<int>{1, 3, 7}) {
        all.push_back({sample_bytes, 5, bin_counts.front(), Distribution::in_bins, offset});
        all.push_back({sample_bytes, 10007, bin_counts.front(), Distribution::in_bins, offset});
    }
    // More than 65535 samples in one bin: a 16-bit count wraps (8-bit ones wrap sooner).
    all.push_back({sample_bytes, 70001, bin_counts.front(), Distribution::single, 3});
    // Past a full grid of one vector per thread: the grid-stride loop goes round again (with
    // the most bins the function takes: 9b's 16-bit histogram holds fewer than 2^16).
    if (grid_full > 0) {
        all.push_back({sample_bytes, grid_full + 16 / sample_bytes * 3 + 5, bin_counts.front(), Distribution::skewed, 1});
    }
    return all;
}

template <class Sample>
tutorial::ShapeSweep sweep(const std::string& what, HistogramFunction<Sample> histogram,
                           const std::vector<HistogramCase>& all, int slice_of_bins = 0) {
    tutorial::ShapeSweep result(what, tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    for (const HistogramCase& c : all) {
        const int slice = slice_of_bins ? cluster_slice(c.num_bins) : 0;
        // Bins that must all stay zero (an empty input; one bin that no sample falls in)
        // are what an unwritten kernel leaves too: such a case is a check, not a point.
        const std::vector<unsigned int> values = samples_of(c);
        const std::vector<unsigned int> expected =
            tutorial::histogram_reference(std::vector<Sample>(values.begin(), values.end()), c.num_bins);
        result.set_scored(std::any_of(expected.begin(), expected.end(), [](unsigned int count) { return count != 0; }));
        result.run(label_of(c),
                   {{"n", c.n, 16 / c.sample_bytes, "", "16-byte vector"},
                    {"offset", c.offset, 0, "", ""},
                    {"num_bins", c.num_bins, slice_of_bins ? kClusterSize : 0, "", "block of a cluster", false}},
                   [&] { return run_case<Sample>(histogram, c, slice); });
    }
    return result;
}

// 9b's grid is full at kHistogramMaxBlocks blocks of one vector per thread.
long long shared_grid_full(int sample_bytes) {
    return static_cast<long long>(kHistogramMaxBlocks) * kHistogramBlock * (16 / sample_bytes);
}
// 9c's at kClusterMaxClusters clusters.
constexpr long long kClusterGridFull = static_cast<long long>(kClusterMaxClusters) * kClusterSize * kClusterBlock * 8;
// 9d's round at kClusterMaxClusters clusters: past it, each block stages a second round
// into its other tile and a third into the first again.
constexpr long long kExchangeRoundFull = static_cast<long long>(kClusterMaxClusters) * kClusterSize * kExchangeTile * 8;

// On a GPU before sm_90, 9c cannot run: its tests say so in one line and stop.
bool skip_without_clusters() {
    std::string why;
    if (cluster_launch_supported(&why)) {
        return false;
    }
    WARN("histogram_cluster is skipped: " << why << ".");
    return true;
}

template <class Sample>
void check_rejects_bad_arguments(HistogramFunction<Sample> histogram, const std::string& name, int most_bins) {
    // Validation must reject the call before any kernel could touch these addresses.
    Sample sample[1] = {0};
    unsigned int bin[1] = {0};
    SECTION("num_bins below 1") {
        REQUIRE_THROWS_WITH(histogram(sample, 1, bin, 0),
                            name + ": argument num_bins must be between 1 and " + std::to_string(most_bins) + ", got 0");
    }
    SECTION("num_bins too many") {
        REQUIRE_THROWS_WITH(histogram(sample, 1, bin, most_bins + 1),
                            name + ": argument num_bins must be between 1 and " + std::to_string(most_bins) + ", got " +
                                std::to_string(most_bins + 1));
    }
    SECTION("null input") {
        REQUIRE_THROWS_WITH(histogram(nullptr, 4, bin, 1), name + ": argument input is a null pointer");
    }
    SECTION("null bins") {
        REQUIRE_THROWS_WITH(histogram(sample, 4, nullptr, 1), name + ": argument bins is a null pointer");
    }
    SECTION("the exception type is std::invalid_argument") {
        REQUIRE_THROWS_AS(histogram(sample, 1, bin, -3), std::invalid_argument);
    }
}

HistogramFunction<std::uint8_t> global8 = histogram_global;
HistogramFunction<std::uint16_t> global16 = histogram_global;
HistogramFunction<std::uint8_t> shared8 = histogram_shared;
HistogramFunction<std::uint16_t> shared16 = histogram_shared;
HistogramFunction<std::uint16_t> cluster16 = histogram_cluster;
HistogramFunction<std::uint16_t> exchange16 = histogram_exchange;

// 9c's and 9d's slices: every bin has samples, so a sample counted into the wrong block's
// slice, or a slice merged into the wrong bins, shows in every slice.
std::vector<HistogramCase> slice_cases() {
    std::vector<HistogramCase> all;
    for (int num_bins : {kMaxBins, 8 * 1000 + 3, 64, 8, 7}) {
        all.push_back({2, 4 * static_cast<long long>(num_bins) + 17, num_bins, Distribution::in_bins, 2});
    }
    return all;
}

}  // namespace

TEST_CASE("histogram_shared_blocks and histogram_cluster_clusters give one 16-byte load per thread, within their caps",
          CHAPTER_TAG) {
    CHECK(histogram_shared_blocks(0, 1) == 1);
    CHECK(histogram_shared_blocks(16 * kHistogramBlock, 1) == 1);
    CHECK(histogram_shared_blocks(16 * kHistogramBlock + 1, 1) == 2);
    CHECK(histogram_shared_blocks(8 * kHistogramBlock + 1, 2) == 2);
    CHECK(histogram_shared_blocks(std::size_t(1) << 40, 1) == kHistogramMaxBlocks);
    CHECK(histogram_cluster_clusters(1) == 1);
    CHECK(histogram_cluster_clusters(8 * kClusterBlock * kClusterSize + 1) == 2);
    CHECK(histogram_cluster_clusters(std::size_t(1) << 40) == kClusterMaxClusters);
    CHECK(histogram_exchange_clusters(1) == 1);
    CHECK(histogram_exchange_clusters(8 * kExchangeTile * kClusterSize) == 1);
    CHECK(histogram_exchange_clusters(8 * kExchangeTile * kClusterSize + 1) == 2);
    CHECK(histogram_exchange_clusters(std::size_t(1) << 40) == kClusterMaxClusters);
    CHECK(cluster_slice(kMaxBins) * kClusterSize == kMaxBins);
    CHECK(cluster_slice(9) == (9 + kClusterSize - 1) / kClusterSize);
}

// 8-bit and 16-bit samples of a step in one test case (one report, a line for the second
// when both fail): the skeleton's whole report stays on a screen.
TEST_CASE("histogram_global counts 8-bit and 16-bit samples exactly", CHAPTER_TAG "[gpu][graded]") {
    std::vector<tutorial::ShapeSweep> sweeps;
    sweeps.push_back(sweep("histogram_global, 8-bit", global8, cases(1, {256, 1, 100}, 0)));
    sweeps.push_back(sweep("histogram_global, 16-bit", global16, cases(2, {kMaxBins, 1000, 65529}, 0)));
    REQUIRE_SWEEPS(sweeps);
}

TEST_CASE("histogram_shared counts 8-bit and 16-bit samples exactly", CHAPTER_TAG "[gpu][graded]") {
    std::vector<tutorial::ShapeSweep> sweeps;
    sweeps.push_back(sweep("histogram_shared, 8-bit", shared8, cases(1, {256, 1, 100}, shared_grid_full(1))));
    sweeps.push_back(sweep("histogram_shared, 16-bit", shared16,
                           cases(2, {kSharedMaxBins, 1000, 4099}, kOnCpuBackend ? 0 : shared_grid_full(2))));
    REQUIRE_SWEEPS(sweeps);
}

// 9c in graded test cases; 9d, going further, in test cases of its own tagged [extra]:
// reported and scored apart (chapter.toml's going_further), so that 9a-9c done is the
// chapter done. The run's first failing sweep prints in full and every later one a line,
// so the skeleton's report stays on a screen.
TEST_CASE(STEP("c") ": histogram_cluster counts 16-bit samples exactly, over a cluster's shared memory",
          CHAPTER_TAG "[gpu][graded]") {
    if (skip_without_clusters()) return;
    // 2^16 bins (2 slices of 32768), bin counts that are no multiple of the cluster size
    // (the last slice is partial), and one bin.
    REQUIRE_SWEEP(sweep("histogram_cluster", cluster16, cases(2, {kMaxBins, 65529, 9, 1}, kClusterGridFull), 1));
}

TEST_CASE(STEP("c") ": histogram_cluster gives every block of a cluster its own slice of bins", CHAPTER_TAG "[gpu][graded]") {
    if (skip_without_clusters()) return;
    REQUIRE_SWEEP(sweep("histogram_cluster's slices", cluster16, slice_cases(), 1));
}

// ---- 9d (going further): the cluster exchanges samples. Tagged [extra]. ----------------
TEST_CASE(STEP("d") ": histogram_exchange counts 16-bit samples exactly, over a cluster's shared memory",
          CHAPTER_TAG "[extra][gpu]") {
    if (skip_without_clusters()) return;
    // 9c's cases, and one past two full rounds of the largest grid, so that the first tile
    // is staged again, while the other blocks may still be reading it if a block refills
    // it too early.
    std::vector<HistogramCase> exchange_cases = cases(2, {kMaxBins, 65529, 9, 1}, 0);
    exchange_cases.push_back({2, 2 * kExchangeRoundFull + 8 * 5 + 3, kMaxBins, Distribution::skewed, 1});
    REQUIRE_SWEEP(sweep("histogram_exchange", exchange16, exchange_cases, 1));
}

TEST_CASE(STEP("d") ": histogram_exchange gives every block of a cluster its own slice of bins", CHAPTER_TAG "[extra][gpu]") {
    if (skip_without_clusters()) return;
    REQUIRE_SWEEP(sweep("histogram_exchange's slices", exchange16, slice_cases(), 1));
}

#ifndef TUTORIAL_EMU
// Large inputs take minutes on the CPU backend: a GPU only. One bin gets more than 65535
// samples in every block's (9b) or cluster's (9c, 9d) share: a private count of 16 bits
// wraps. 9d's case is its own, tagged [extra] like its other cases, so that a chapter done
// with 9a to 9c has no required failure from it.
TEST_CASE(STEP("a") ", " STEP("b") " and " STEP("c") " count 2^28 bytes of one value: a private bin passes 2^16",
          CHAPTER_TAG "[gpu][large]") {
    // The steps in one report (the first failing one in full, a line for each other).
    const long long n8 = 1LL << 28;
    std::vector<tutorial::ShapeSweep> sweeps;
    sweeps.push_back(sweep("histogram_global of 2^28 bytes", global8, {{1, n8, 256, Distribution::single, 5}}));
    sweeps.push_back(sweep("histogram_shared of 2^28 bytes", shared8,
                           {{1, n8, 256, Distribution::single, 5}, {1, n8, 256, Distribution::skewed, 0}}));
    if (!skip_without_clusters()) {
        sweeps.push_back(sweep("histogram_cluster of 2^28 bytes", cluster16,
                               {{2, n8 / 2, kMaxBins, Distribution::single, 3}, {2, n8 / 2, kMaxBins, Distribution::uniform, 0}},
                               1));
    }
    REQUIRE_SWEEPS(sweeps);
}

TEST_CASE(STEP("d") ": histogram_exchange counts 2^28 bytes of one value: a private bin passes 2^16",
          CHAPTER_TAG "[extra][gpu][large]") {
    if (skip_without_clusters()) return;
    const long long n8 = 1LL << 28;
    REQUIRE_SWEEP(sweep("histogram_exchange of 2^28 bytes", exchange16,
                        {{2, n8 / 2, kMaxBins, Distribution::single, 3}, {2, n8 / 2, kMaxBins, Distribution::skewed, 0}},
                        1));
}
#endif

TEST_CASE("histogram_global rejects a bad num_bins and null pointers, naming the argument", CHAPTER_TAG) {
    SECTION("8-bit") { check_rejects_bad_arguments(global8, "histogram_global", 256); }
    SECTION("16-bit") { check_rejects_bad_arguments(global16, "histogram_global", kMaxBins); }
}

TEST_CASE("histogram_shared rejects a bad num_bins and null pointers, naming the argument", CHAPTER_TAG) {
    SECTION("8-bit") { check_rejects_bad_arguments(shared8, "histogram_shared", 256); }
    SECTION("16-bit") { check_rejects_bad_arguments(shared16, "histogram_shared", kSharedMaxBins); }
}

TEST_CASE("histogram_cluster rejects a bad num_bins and null pointers, naming the argument", CHAPTER_TAG "[gpu]") {
    if (skip_without_clusters()) return;
    check_rejects_bad_arguments(cluster16, "histogram_cluster", kMaxBins);
}

TEST_CASE(STEP("d") ": histogram_exchange rejects a bad num_bins and null pointers, naming the argument", CHAPTER_TAG "[extra][gpu]") {
    if (skip_without_clusters()) return;
    check_rejects_bad_arguments(exchange16, "histogram_exchange", kMaxBins);
}

TEST_CASE("an empty input needs no input pointer, and gives zero bins", CHAPTER_TAG "[gpu]") {
    tutorial::DeviceBuffer<unsigned int> bins(256);
    bins.poison();
    histogram_shared(static_cast<const std::uint8_t*>(nullptr), 0, bins.data(), 256);
    CHECK(bins.download() == std::vector<unsigned int>(256, 0u));
}

TEST_CASE("histogram_reference counts each value below num_bins and drops the others", CHAPTER_TAG "[reference]") {
    const std::vector<std::uint8_t> bytes{3, 0, 3, 255, 7, 3};
    CHECK(tutorial::histogram_reference(bytes, 8) == std::vector<unsigned int>{1, 0, 0, 3, 0, 0, 0, 1});
    const std::vector<std::uint16_t> words{65535, 2, 2};
    std::vector<unsigned int> expected(65536, 0u);
    expected[2] = 2;
    expected[65535] = 1;
    CHECK(tutorial::histogram_reference(words, 65536) == expected);
    CHECK_THROWS_AS(tutorial::histogram_reference(bytes, 0), std::invalid_argument);
}

TEST_CASE("compare_bins names what the wrong bins share", CHAPTER_TAG "[reference]") {
    tutorial::HistogramContext c;
    c.samples = {1, 1, 1, 2, 3, 0, 5, 6};
    c.num_bins = 8;
    const std::vector<unsigned int> right{1, 3, 1, 1, 0, 1, 1, 0};
    CHECK(tutorial::compare_bins(right, right, c).ok());
    // The report's words on one line: it wraps at the report's width.
    const auto one_line = [](const std::string& text) {
        std::string line;
        std::istringstream words(text);
        for (std::string word; words >> word;) line += word + " ";
        return line;
    };
    auto says = [&](const std::vector<unsigned int>& got, const std::string& words) {
        const tutorial::ComparisonReport report = tutorial::compare_bins(got, right, c);
        INFO(report.text);
        CHECK(report.text.find(words) != std::string::npos);
    };
    says({0, 0, 0, 0, 0, 0, 0, 0}, "None of the 8 samples was counted");
    {
        // 9a's kernel has no head, tail or private bins: the advice names what it has.
        tutorial::HistogramContext one_each = c;
        one_each.one_sample_per_thread = true;
        const std::string text = one_line(tutorial::compare_bins(std::vector<unsigned int>(8, 0u), right, one_each).text);
        INFO(text);
        CHECK(text.find("None of the 8 samples was counted") != std::string::npos);
        CHECK(text.find("blockIdx.x * blockDim.x + threadIdx.x") != std::string::npos);
        CHECK(text.find("head") == std::string::npos);
        CHECK(text.find("merge") == std::string::npos);
    }
    {
        tutorial::HistogramContext longer = c;
        longer.samples.assign(100, 2);
        std::vector<unsigned int> hundred(8, 0u);
        hundred[2] = 100;
        const tutorial::ComparisonReport report = tutorial::compare_bins(std::vector<unsigned int>(8, 0u), hundred, longer);
        INFO(report.text);
        CHECK(report.text.find("never added to the global bins") != std::string::npos);
    }
    says({0, 2, 0, 0, 4294967295u, 0, 0, 4294967295u}, "off by the same -1");
    says({1, 3, 1, 1, 0, 1, 0, 0}, "the last 1 sample were not counted");  // sample 6
    says({1, 2, 1, 1, 0, 1, 1, 0}, "the first 1 sample were not counted");
    {
        // With the head and the tail known (3 and 1 samples here), a run of another length
        // is not blamed on them: sample 6, lost, is the last one but not the whole tail.
        tutorial::HistogramContext known = c;
        known.vectors_known = true;
        known.head = 3;
        known.tail = 2;
        const std::string lost_one = one_line(tutorial::compare_bins({1, 3, 1, 1, 0, 1, 0, 0}, right, known).text);
        INFO(lost_one);
        CHECK(lost_one.find("tail") == std::string::npos);
        CHECK(lost_one.find("1 count of 8 is missing") != std::string::npos);
        known.tail = 1;
        CHECK(one_line(tutorial::compare_bins({1, 3, 1, 1, 0, 1, 0, 0}, right, known).text)
                  .find("the last 1 sample were not counted") != std::string::npos);
        // Too many counts: double counting, or a histogram not zeroed; in a cluster, a block gone.
        const std::string extra = one_line(tutorial::compare_bins({1, 3, 2, 1, 1, 1, 1, 0}, right, known).text);
        INFO(extra);
        CHECK(extra.find("a private histogram not zeroed first") != std::string::npos);
        // A count in bin 4, where no sample falls, is no sample counted twice.
        CHECK(extra.find("bin 4, which no sample falls in, holds 1") != std::string::npos);
        CHECK(extra.find("counted more than once") == std::string::npos);
        CHECK(extra.find("a loop whose count runs past n") != std::string::npos);
        // 9a has no loop: a thread per sample, past the end when its index is not checked.
        tutorial::HistogramContext per_thread = known;
        per_thread.one_sample_per_thread = true;
        const std::string unchecked = one_line(tutorial::compare_bins({1, 3, 2, 1, 1, 1, 1, 0}, right, per_thread).text);
        INFO(unchecked);
        CHECK(unchecked.find("the check of its index against n") != std::string::npos);
        CHECK(unchecked.find("loop") == std::string::npos);
        CHECK(unchecked.find("private histogram") == std::string::npos);
        const std::string shared_index = one_line(tutorial::compare_bins({2, 3, 1, 1, 0, 1, 1, 0}, right, per_thread).text);
        INFO(shared_index);
        CHECK(shared_index.find("an index that two threads share") != std::string::npos);
        CHECK(shared_index.find("private histogram") == std::string::npos);
        CHECK(shared_index.find("grid-stride") == std::string::npos);
        // Extra counts only where samples fall: either cause, both named.
        const std::string twice = one_line(tutorial::compare_bins({2, 3, 1, 1, 0, 1, 1, 0}, right, known).text);
        INFO(twice);
        CHECK(twice.find("either some samples were counted more than once") != std::string::npos);
        CHECK(twice.find("a private histogram not zeroed first") != std::string::npos);
        known.slice = 4;
        const std::string gone = one_line(tutorial::compare_bins({1, 1, 1, 1, 0, 1, 1, 0}, right, known).text);
        INFO(gone);
        CHECK(gone.find("a cluster.sync() is missing before the merge") != std::string::npos);
    }
    {
        // Whole bins lost, every other right: the highest values (a value check that drops the
        // last bin), the lowest, or in a cluster a slice never merged; 9a's advice names no
        // merge and no zeroing, which it does not have.
        tutorial::HistogramContext top = c;
        top.samples = {1, 0, 7, 2, 7, 0, 6, 7};
        top.one_sample_per_thread = true;
        const std::vector<unsigned int> expected{2, 1, 1, 0, 0, 0, 1, 3};
        // The report of `got` on one line, and whether it has a phrase.
        const auto report = [&](const std::vector<unsigned int>& got) {
            return one_line(tutorial::compare_bins(got, expected, top).text);
        };
        const auto has = [](const std::string& text, const char* phrase) { return text.find(phrase) != std::string::npos; };
        const std::string last = report({2, 1, 1, 0, 0, 0, 1, 0});
        INFO(last);
        CHECK(has(last, "Every count of bin 7, the last bin, is missing (3 samples), and every other bin is right"));
        CHECK(has(last, "value < num_bins"));
        const std::string two = report({2, 1, 1, 0, 0, 0, 0, 0});
        INFO(two);
        CHECK(has(two, "Every count of bins 6 to 7, the last ones, is missing (4 samples)"));
        const std::string low = report({0, 1, 1, 0, 0, 0, 1, 3});
        INFO(low);
        CHECK(has(low, "Every count of bin 0 is missing (2 samples)"));
        CHECK(has(low, "the samples of value 0 were not counted"));
        // One sample lost, or counts lost here and there: 9a's own causes, no merge.
        const std::string middle = report({2, 1, 0, 0, 0, 0, 1, 3});
        INFO(middle);
        CHECK_FALSE(has(middle, "Every count of"));
        CHECK(has(middle, "without atomicAdd"));
        CHECK_FALSE(has(middle, "merge"));
        CHECK_FALSE(has(middle, "zero"));
        top.one_sample_per_thread = false;
        top.slice = 4;  // bins 0-3 are block rank 0's, 4-7 rank 1's
        const std::string slice = report({0, 0, 0, 0, 0, 0, 1, 3});
        INFO(slice);
        CHECK(has(slice, "the slice of block rank 0, whose counts never reached the global bins"));
        CHECK(has(slice, "cluster.block_rank()"));
        // Counts lost across the bins in a cluster: a slice merged by blockIdx.x is one cause named.
        const std::string spread = report({2, 0, 1, 0, 0, 0, 1, 2});
        INFO(spread);
        CHECK(has(spread, "not blockIdx.x"));
        CHECK(has(spread, "a cluster.sync() is missing before the merge"));
    }
    says({1, 3, 1, 0, 1, 1, 1, 0}, "wrong bin");
    says({1, 2, 1, 0, 0, 1, 1, 0}, "2 counts of 8 are missing");
    c.slice = 4;  // bins 0-3 are block 0's, 4-7 block 1's
    says({1, 3, 0, 1, 0, 1, 2, 0}, "wrong block's slice");
    c.slice = 0;
    c.samples.assign(70000, 1);
    std::vector<unsigned int> many(8, 0u), wrapped(8, 0u);
    many[1] = 70000;
    wrapped[1] = 70000 - 65536;
    const tutorial::ComparisonReport report = tutorial::compare_bins(wrapped, many, c);
    INFO(report.text);
    CHECK(report.text.find("16-bit counter") != std::string::npos);
}

TEST_CASE("require_histogram_arguments names the argument", CHAPTER_TAG "[reference]") {
    unsigned int bin = 0;
    CHECK_THROWS_WITH(tutorial::require_histogram_arguments("h", &bin, 1, &bin, 0, 256),
                      "h: argument num_bins must be between 1 and 256, got 0");
    CHECK_THROWS_WITH(tutorial::require_histogram_arguments("h", nullptr, 1, &bin, 4, 256),
                      "h: argument input is a null pointer");
    CHECK_NOTHROW(tutorial::require_histogram_arguments("h", nullptr, 0, &bin, 4, 256));
}
