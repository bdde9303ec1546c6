// Chapter 9 benchmark: histograms of 2^28 bytes, as 8-bit samples into 256 bins and as
// 16-bit samples into 2^16 bins, on uniform, skewed and (8-bit) one-value inputs.
//
// `make chapter9 bench` times your kernels; `make chapter9 bench SOLUTIONS=1` the
// references. Beside them, in the same run: the copy ceiling and the library a user would
// call instead, cub::DeviceHistogram::HistogramEven (the baseline the speed-ups are
// over, so "× the library" is the speed-up column). Each result is checked against the
// CPU after timing. The 8-bit problems end with "shared privatized, loads only": 9b's grid,
// shared memory and loads, with an XOR of each word in place of the counting
// (bench/histogram_copy.cu); the gap from it to 9b is the counting's, from the copy to it the
// loads' own.
//
// The rate counts only the input read: 2^28 bytes per run (the bins are a few hundred
// KB at most). Its ceiling is the device-to-device copy the session measures first,
// reads plus writes: a histogram that reads as fast as a copy moves bytes is as fast as
// the memory allows.
#include "histogram.h"
#include "tutorial_chapter.h"

#include "bench/cub_histogram.h"
#include "bench/histogram_copy.h"
#include "benchmark/session.h"
#include "device_buffer.h"
#include "histogram_reference.h"
#include "random.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kInputBytes = std::size_t(1) << 28;

enum class Distribution { uniform, skewed, single };

// The same distributions as the tests: uniform over every value; value = range · u^4
// (a few busy bins); one value for every sample.
template <class Sample>
std::vector<Sample> samples(std::size_t n, Distribution d, std::uint64_t seed) {
    const unsigned int range = 1u << (8 * sizeof(Sample));
    std::vector<Sample> values(n);
    if (d == Distribution::uniform) {
        const std::vector<std::uint8_t> bytes = tutorial::random_bytes(n * sizeof(Sample), seed);
        for (std::size_t i = 0; i < n; ++i) {
            values[i] = sizeof(Sample) == 1 ? bytes[i] : static_cast<Sample>(bytes[2 * i] | (bytes[2 * i + 1] << 8));
        }
    } else if (d == Distribution::skewed) {
        const std::vector<float> u = tutorial::random_floats(n, seed, 0.0f, 1.0f);
        for (std::size_t i = 0; i < n; ++i) {
            const double x = u[i];
            values[i] = static_cast<Sample>(std::min(range - 1, static_cast<unsigned int>(range * (x * x * x * x))));
        }
    } else {
        values.assign(n, static_cast<Sample>(range / 3));
    }
    return values;
}

template <class Sample>
void measure_problem(tutorial::benchmark::Session& session, const std::string& problem, Distribution d, int num_bins,
                     const std::vector<std::pair<std::string, std::function<void(const Sample*, unsigned int*)>>>& ours) {
    using namespace tutorial;
    const std::size_t n = kInputBytes / sizeof(Sample);
    const std::vector<Sample> values = samples<Sample>(n, d, derive_seed(run_seed(), {static_cast<long long>(d), num_bins}));
    const std::vector<unsigned int> expected = histogram_reference(values, num_bins);
    const DeviceBuffer<Sample> input(values);
    DeviceBuffer<unsigned int> bins(static_cast<std::size_t>(num_bins));
    const benchmark::CubHistogram cub(n, static_cast<int>(sizeof(Sample)), num_bins);

    auto measure = [&](const std::string& variant, bool is_baseline, std::function<void()> run) {
        benchmark::WorkToTime work;
        work.problem = problem;
        work.variant = variant;
        work.unit = "GB/s";
        work.work = static_cast<double>(kInputBytes);  // the input, read once
        work.bytes_written = static_cast<double>(bins.bytes());  // the bins: a few hundred KB at most
        work.is_baseline = is_baseline;
        work.prepare = [&] { bins.poison(); };  // a run that writes no bins fails the check
        work.run = std::move(run);
        work.check = [&] {
            const std::vector<unsigned int> got = bins.download();
            if (got == expected) {
                return std::string();
            }
            HistogramContext context;  // the samples as values, for the diagnosis: only when wrong
            context.samples.assign(values.begin(), values.end());
            context.num_bins = num_bins;
            context.seed = run_seed();
            return compare_bins(got, expected, context).text;
        };
        session.measure_kernel(work, session.copy_ceiling());
    };
    measure("CUB HistogramEven", true, [&] { cub.run(input.data(), bins.data()); });
    for (const auto& [variant, histogram] : ours) {
        measure(variant, false, [&, histogram = histogram] { histogram(input.data(), bins.data()); });
    }
    if constexpr (sizeof(Sample) == 1) {
        // 9b's loads alone: every thread's XOR of its words, each checked against the CPU's.
        const std::size_t threads = histogram_copy_threads(n);
        const std::vector<unsigned int> expected_folds = histogram_copy_reference(values, threads);
        DeviceBuffer<unsigned int> folds(threads);
        benchmark::WorkToTime work;
        work.problem = problem;
        work.variant = "shared privatized, loads only (no counting)";
        work.unit = "GB/s";
        work.work = static_cast<double>(kInputBytes);
        work.bytes_written = static_cast<double>(folds.bytes());
        work.prepare = [&] { folds.poison(); };
        work.run = [&] { histogram_copy(input.data(), n, folds.data()); };
        work.check = [&] {
            const std::vector<unsigned int> got = folds.download();
            std::size_t wrong = 0, first = threads;
            for (std::size_t t = 0; t < threads; ++t) {
                if (got[t] != expected_folds[t]) {
                    first = std::min(first, t);
                    ++wrong;
                }
            }
            if (wrong == 0) {
                return std::string();
            }
            return std::to_string(wrong) + " of the " + std::to_string(threads) + " threads' XORs differ from the CPU's; the first, thread " +
                   std::to_string(first) + ": " + std::to_string(got[first]) + " where " + std::to_string(expected_folds[first]) +
                   " was expected (seed " + std::to_string(run_seed()) + ")";
        };
        session.measure_kernel(work, session.copy_ceiling());
    }
}

}  // namespace

int main(int argc, char* argv[]) {
    using namespace tutorial;
    return benchmark::run(argc, argv, [](benchmark::Session& session) {
        const std::size_t n8 = kInputBytes, n16 = kInputBytes / 2;
        using Bytes = std::function<void(const std::uint8_t*, unsigned int*)>;
        using Words = std::function<void(const std::uint16_t*, unsigned int*)>;
        const std::vector<std::pair<std::string, Bytes>> byte_steps = {
            {"global atomics (" STEP("a") ")", [=](const std::uint8_t* in, unsigned int* bins) { histogram_global(in, n8, bins, 256); }},
            {"shared privatized (" STEP("b") ")", [=](const std::uint8_t* in, unsigned int* bins) { histogram_shared(in, n8, bins, 256); }}};
        std::vector<std::pair<std::string, Words>> word_steps = {
            {"global atomics (" STEP("a") ")", [=](const std::uint16_t* in, unsigned int* bins) { histogram_global(in, n16, bins, kMaxBins); }}};
        if (cluster_launch_supported()) {
            word_steps.push_back({"cluster DSMEM (" STEP("c") ")", [=](const std::uint16_t* in, unsigned int* bins) {
                                      histogram_cluster(in, n16, bins, kMaxBins);
                                  }});
            word_steps.push_back({"cluster exchange (" STEP("d") ")", [=](const std::uint16_t* in, unsigned int* bins) {
                                      histogram_exchange(in, n16, bins, kMaxBins);
                                  }});
        }
        measure_problem<std::uint8_t>(session, "2^28 bytes, 256 bins, uniform", Distribution::uniform, 256, byte_steps);
        measure_problem<std::uint8_t>(session, "2^28 bytes, 256 bins, skewed", Distribution::skewed, 256, byte_steps);
        measure_problem<std::uint8_t>(session, "2^28 bytes, 256 bins, one value", Distribution::single, 256, byte_steps);
        measure_problem<std::uint16_t>(session, "2^27 16-bit, 2^16 bins, uniform", Distribution::uniform, kMaxBins,
                                       word_steps);
        measure_problem<std::uint16_t>(session, "2^27 16-bit, 2^16 bins, skewed", Distribution::skewed, kMaxBins,
                                       word_steps);
    });
}
