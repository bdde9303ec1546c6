// Chapter 4 benchmark: the moving average over 64 Mi floats, naive, read-only and shared.
//
// `make chapter4 bench` times your kernels; `make chapter4 bench SOLUTIONS=1` the
// references. For windows N = 8, 64 and 255, and N = 1025, wider than any thread block
// can be, it times the library a user would call (CUB: cub::DeviceScan::InclusiveSum in
// double, then one pass of differences), moving_average_naive (the baseline),
// moving_average_readonly, moving_average_shared, moving_average_prefix (4d) and
// moving_average_stream (4e), and checks the result against the CPU after timing. Its last
// row, "one pass, copy only", moves 4e's bytes with 4e's chunks, loads, ring and stores,
// but computes nothing (bench/moving_average_copy.cu): output j is input j + N - 1. The gap
// from it to 4e is the work done between the loads, from the copy to it the data movement's own.
//
// The rate is effective bandwidth: the compulsory bytes, the input read once and the
// size - N + 1 outputs written once, over the time; its ceiling is the
// device-to-device copy the session measures first.
//
// The CPU reference of 64 Mi outputs at N = 1025 would take minutes, so the check
// covers three slices of 1 Mi outputs each: the first, the middle and the last. A
// window depends only on its own N inputs, so each slice's reference is exact.
#include "moving_average.h"
#include "tutorial_chapter.h"

#include "bench/cub_moving_average.h"
#include "bench/moving_average_copy.h"
#include "benchmark/session.h"
#include "compare.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "random.h"
#include "moving_average_reference.h"

#include <string>
#include <vector>

namespace {

constexpr long long kSize = 64ll << 20;        // 64 Mi floats, 256 MiB
constexpr long long kSliceLength = 1ll << 20;  // outputs per checked slice

using MovingAverageFunction = void (*)(const float* input, float* output, int size, int window);

// The offsets of the checked slices of outputs, and their reference, in one row each.
struct SlicedReference {
    std::vector<long long> offsets;
    tutorial::ExpectedOutput expected;
};

SlicedReference reference_slices(const std::vector<float>& input, int window) {
    const long long outputs = kSize - window + 1;
    SlicedReference sliced;
    sliced.offsets = {0, (outputs - kSliceLength) / 2, outputs - kSliceLength};
    for (long long offset : sliced.offsets) {
        const std::vector<float> piece(input.begin() + offset, input.begin() + offset + kSliceLength + window - 1);
        const tutorial::ExpectedOutput part = tutorial::moving_average_reference(piece, window);
        sliced.expected.value.insert(sliced.expected.value.end(), part.value.begin(), part.value.end());
        sliced.expected.tolerance.insert(sliced.expected.tolerance.end(), part.tolerance.begin(),
                                         part.tolerance.end());
    }
    return sliced;
}

std::string check_slices(const tutorial::DeviceBuffer<float>& output, const SlicedReference& sliced, int window) {
    std::vector<float> got(sliced.offsets.size() * kSliceLength);
    for (std::size_t s = 0; s < sliced.offsets.size(); ++s) {
        CUDA_CHECK(cudaMemcpy(got.data() + s * kSliceLength, output.data() + sliced.offsets[s],
                              kSliceLength * sizeof(float), cudaMemcpyDeviceToHost));
    }
    tutorial::OutputLayout layout;
    layout.name = "output (rows: the first, middle and last 1 Mi of the " + std::to_string(kSize - window + 1) +
                  " outputs)";
    layout.rows = static_cast<long long>(sliced.offsets.size());
    layout.cols = kSliceLength;
    layout.seed = tutorial::run_seed();
    return tutorial::compare_with_tolerance(got, sliced.expected, layout).text;
}

}  // namespace

int main(int argc, char* argv[]) {
    using namespace tutorial;
    return benchmark::run(argc, argv, [](benchmark::Session& session) {
        const std::vector<float> signal = random_floats(kSize, derive_seed(run_seed(), {kSize}));
        DeviceBuffer<float> input(signal), output(kSize);
        benchmark::CubMovingAverage cub_moving_average(static_cast<int>(kSize));
        // Compulsory bytes: the input read once, the size - N + 1 outputs written once.
        const auto compulsory_bytes = [](int window) {
            return static_cast<double>(sizeof(float)) * static_cast<double>(kSize + (kSize - window + 1));
        };
        const auto written_bytes = [](int window) {
            return static_cast<double>(sizeof(float)) * static_cast<double>(kSize - window + 1);
        };

        for (int window : {8, 64, 255, 1025}) {
            const SlicedReference sliced = reference_slices(signal, window);
            const std::string problem = "64 Mi floats, N=" + std::to_string(window);
            {
                benchmark::WorkToTime work;
                work.problem = problem;
                work.variant = "CUB InclusiveSum (double) + differences";
                work.unit = "GB/s";
                work.work = compulsory_bytes(window);
                // The outputs, and the scan's prefix sums in between, a double per input.
                work.bytes_written = written_bytes(window) + sizeof(double) * static_cast<double>(kSize);
                work.prepare = [&] { output.poison(); };
                work.run = [&] { cub_moving_average(input.data(), output.data(), static_cast<int>(kSize), window); };
                work.check = [&] { return check_slices(output, sliced, window); };
                session.measure_library(work, session.copy_ceiling());
            }
            const std::pair<const char*, MovingAverageFunction> variants[] = {
                {"naive", moving_average_naive},
                {"read-only", moving_average_readonly},
                {"shared", moving_average_shared},
                {"prefix sums", moving_average_prefix},  // 4d, the chapter's optional step
                {"one pass (" STEP("e") ")", moving_average_stream},  // 4e, going further still
            };
            for (const auto& [variant, moving_average] : variants) {
                benchmark::WorkToTime work;
                work.problem = problem;
                work.variant = variant;
                work.unit = "GB/s";
                work.work = compulsory_bytes(window);
                work.bytes_written = written_bytes(window);
                work.is_baseline = moving_average == moving_average_naive;
                work.prepare = [&] { output.poison(); };  // NaN: an output never written fails the check
                work.run = [&, moving_average = moving_average] {
                    moving_average(input.data(), output.data(), static_cast<int>(kSize), window);
                };
                work.check = [&] { return check_slices(output, sliced, window); };
                session.measure_kernel(work, session.copy_ceiling());
            }
            {
                // 4e's data movement alone: output j is input j + window - 1, every output checked.
                benchmark::WorkToTime work;
                work.problem = problem;
                work.variant = "one pass, copy only (no arithmetic)";
                work.unit = "GB/s";
                work.work = compulsory_bytes(window);
                work.bytes_written = written_bytes(window);
                work.prepare = [&] { output.poison(); };
                work.run = [&] { moving_average_copy(input.data(), output.data(), static_cast<int>(kSize), window); };
                work.check = [&] {
                    const std::vector<float> got = output.download();
                    const long long outputs = kSize - window + 1;
                    long long wrong = 0, first = -1;
                    for (long long j = 0; j < outputs; ++j) {
                        // Bit for bit: a copy changes nothing (and a NaN poison never equals itself).
                        if (!(got[j] == signal[j + window - 1])) {
                            if (first < 0) first = j;
                            ++wrong;
                        }
                    }
                    if (wrong == 0) {
                        return std::string();
                    }
                    return std::to_string(wrong) + " of the " + std::to_string(outputs) + " outputs are not input j + " +
                           std::to_string(window - 1) + "; the first, output " + std::to_string(first) + ": " +
                           std::to_string(got[first]) + " where " + std::to_string(signal[first + window - 1]) +
                           " was expected (seed " + std::to_string(run_seed()) + ")";
                };
                session.measure_kernel(work, session.copy_ceiling());
            }
        }
    });
}
