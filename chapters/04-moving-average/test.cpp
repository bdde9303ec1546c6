// Chapter 4 tests: the moving average, naive, read-only and in dynamic shared memory.
// Run them with `make chapter4 test`.
#include "moving_average.h"
#include "tutorial_chapter.h"

#include "catch.h"
#include "compare.h"
#include "device_buffer.h"
#include "expect.h"
#include "random.h"
#include "moving_average_reference.h"
#include "sweep.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <ostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

using MovingAverage = std::function<void(const float*, float*, int, int)>;

struct SignalCase {
    int size;
    int window;
    int outputs() const { return size - window + 1; }  // one per position of the window
};

std::ostream& operator<<(std::ostream& out, const SignalCase& c) {
    return out << "size " << c.size << ", window " << c.window << " (" << c.outputs()
               << (c.outputs() == 1 ? " output)" : " outputs)");
}

constexpr int B = kMovingAverageBlock;

// The smallest window whose span, (block + window − 1) floats, passes 48 KB.
constexpr int kFirstWindowPast48KB = static_cast<int>(kSharedMemoryWithoutOptIn / sizeof(float)) - B + 2;

std::vector<SignalCase> signal_cases() {
    std::vector<SignalCase> cases{
        {1, 1},          // the smallest input
        {1000, 1},       // a window of one: a copy
        {1000, 1000},    // the window is the whole input: one output
        {3 * B + 5, 3 * B + 5},  // one output, from a window several blocks long
    };
    // Windows just below, at and above the block, and several blocks long; for each,
    // 1 output, one block less one, one block and one, and a count that is no multiple.
    for (int window : {2, 7, 64, B - 1, B, B + 1, 3 * B}) {
        for (int outputs : {1, B - 1, B + 1, 1001}) {
            cases.push_back({window + outputs - 1, window});
        }
    }
    cases.push_back({4099, 255});  // the benchmark's largest window, on a prime-ish size
    // Needs more than 48 KB of shared memory per block: the kernel must be opted in.
    cases.push_back({kFirstWindowPast48KB + 1000, kFirstWindowPast48KB + 300});
    return cases;
}

// Whether the kernel loads a halo into shared memory: only then may a report blame one.
enum class Halo { none, loaded };

// The layout of `outputs` outputs made by blocks of `block` outputs each, which load
// `halo` inputs past their own (0 for a kernel that loads none): the report's error map.
tutorial::OutputLayout signal_layout(int outputs, int block, int halo) {
    tutorial::OutputLayout layout;
    layout.name = "output";
    layout.rows = 1;
    layout.cols = outputs;
    layout.tile_rows = 1;
    layout.tile_cols = block;
    layout.halo = halo;
    layout.seed = tutorial::run_seed();
    return layout;
}

tutorial::ComparisonReport run_moving_average(const MovingAverage& moving_average, const SignalCase& c,
                                              Halo halo) {
    const std::uint64_t seed = tutorial::derive_seed(tutorial::run_seed(), {c.size, c.window});
    const std::vector<float> input = tutorial::random_floats(static_cast<std::size_t>(c.size), seed);
    const int outputs = c.outputs();
    tutorial::DeviceBuffer<float> device_input(input), device_output(static_cast<std::size_t>(outputs));
    device_output.poison();
    moving_average(device_input.data(), device_output.data(), c.size, c.window);

    return tutorial::compare_with_tolerance(device_output.download(), tutorial::moving_average_reference(input, c.window),
                                            signal_layout(outputs, B, halo == Halo::loaded ? c.window - 1 : 0));
}

// Every signal case in one report: the first failing one in full, a line for each other,
// and what the failing cases share (more than one block of outputs, say).
tutorial::ShapeSweep sweep_signal_cases(const std::string& name, const MovingAverage& moving_average, Halo halo) {
    tutorial::SweepOptions options = tutorial::default_sweep_options(TUTORIAL_CHAPTER);
    options.case_prefix = name + ", ";  // the three steps' cases share a test case
    tutorial::ShapeSweep sweep(name, options);
    for (const SignalCase& c : signal_cases()) {
        std::ostringstream label;
        label << c;
        const int outputs = c.outputs();
        tutorial::OutputOwnership ownership;
        ownership.output_name = "output";
        ownership.rows = 1;
        ownership.cols = outputs;
        // One thread per output: i = blockIdx.x * 256 + threadIdx.x.
        ownership.element_of = [](tutorial::Index3 block, tutorial::Index3 thread, long long& row, long long& col) {
            row = 0;
            col = block.x * B + thread.x;
        };
        ownership.stages_in_shared = halo == Halo::loaded;
        ownership.reads_neighbours = true;  // a stencil: a box, a window
        sweep.run(label.str(),
                  {{"size", c.size, 0, "", ""}, {"window", c.window, 0, "", ""}, {"outputs", outputs, B, "", "block"}},
                  [&] { return run_moving_average(moving_average, c, halo); }, ownership);
    }
    return sweep;
}

void check_rejects_bad_arguments(const MovingAverage& moving_average, const std::string& name) {
    // Validation must reject the call before any kernel could touch these addresses.
    float dummy = 0.0f;
    float* p = &dummy;
    SECTION("size 0") {
        REQUIRE_THROWS_WITH(moving_average(p, p, 0, 1), name + ": argument size must be at least 1, got 0");
    }
    SECTION("window 0") {
        REQUIRE_THROWS_WITH(moving_average(p, p, 100, 0),
                            name + ": argument window must be between 1 and 100, got 0");
    }
    SECTION("window larger than the input") {
        REQUIRE_THROWS_WITH(moving_average(p, p, 100, 101),
                            name + ": argument window must be between 1 and 100, got 101");
    }
    SECTION("null input") {
        REQUIRE_THROWS_WITH(moving_average(nullptr, p, 100, 10), name + ": argument input is a null pointer");
    }
    SECTION("null output") {
        REQUIRE_THROWS_WITH(moving_average(p, nullptr, 100, 10), name + ": argument output is a null pointer");
    }
    SECTION("the exception type is std::invalid_argument") {
        REQUIRE_THROWS_AS(moving_average(p, p, 100, 0), std::invalid_argument);
    }
}

}  // namespace

TEST_CASE("moving_average_launch_config gives one thread per output, 256 to a block", CHAPTER_TAG "[graded]") {
    REQUIRE(kMovingAverageBlock == 256);
    for (const SignalCase& c : signal_cases()) {
        const tutorial::LaunchConfig got = moving_average_launch_config(c.size, c.window);
        const unsigned blocks = tutorial::ceil_div(c.outputs(), B);
        REQUIRE_LAUNCH_CONFIG(got, dim3(blocks), dim3(B), "For " << c,
                              "ceil(" << c.outputs() << " / " << B << ") = " << blocks);
    }
}

TEST_CASE("moving_average_shared_bytes is room for the block plus the window - 1 halo, in floats", CHAPTER_TAG "[graded]") {
    // Checked all at once, with one report listing every wrong window: one mistake (the
    // halo forgotten, an int product) is wrong for several windows in the same way.
    struct Expected {
        int window;
        std::size_t bytes;
        const char* why;  // what the window tests
    };
    const std::vector<Expected> expected{
        {1, B * sizeof(float), "no halo"},
        {64, (B + 63) * sizeof(float), "a halo shorter than the block"},
        {3 * B, (4 * B - 1) * sizeof(float), "a halo longer than the block"},
        {kFirstWindowPast48KB - 1, kSharedMemoryWithoutOptIn, "48 KB exactly"},
        {kFirstWindowPast48KB, kSharedMemoryWithoutOptIn + sizeof(float), "one float past 48 KB"},
        // (256 + 2e9 - 1) floats is 8000001020 bytes: more than an int, or 32 bits, holds.
        {2000000000, std::size_t{8000001020}, "more bytes than an int or 32 bits hold"},
    };
    std::ostringstream wrong;
    int wrong_count = 0;
    for (const Expected& e : expected) {
        const std::size_t got = moving_average_shared_bytes(e.window);
        if (got != e.bytes) {
            ++wrong_count;
            wrong << "  window " << e.window << " (" << e.why << "): got " << got << ", expected " << e.bytes << "\n";
        }
    }
    if (wrong_count > 0) {
        FAIL("moving_average_shared_bytes(window) must be (" << B << " + window - 1) * sizeof(float) bytes, "
             << "the block's " << B << " outputs and the window - 1 inputs of its halo; it is wrong for "
             << wrong_count << " of " << expected.size() << " windows:\n"
             << wrong.str());
    }
    SUCCEED();
}

// 4a-4c in one test case, a sweep each: a run where all three fail (the skeleton) prints
// the first failing step's report and a line for each other.
TEST_CASE("moving_average_naive, _readonly and _shared match the CPU reference for every size and window",
          CHAPTER_TAG "[gpu][graded]") {
    // The largest case needs more than 48 KB of shared memory per block, so the shared
    // kernel must be opted in to it (cudaFuncSetAttribute).
    std::vector<tutorial::ShapeSweep> sweeps;
    sweeps.push_back(sweep_signal_cases("moving_average_naive", moving_average_naive, Halo::none));
    sweeps.push_back(sweep_signal_cases("moving_average_readonly", moving_average_readonly, Halo::none));
    sweeps.push_back(sweep_signal_cases("moving_average_shared", moving_average_shared, Halo::loaded));
    REQUIRE_SWEEPS(sweeps);
}

TEST_CASE("moving_average_readonly_kernel takes const float* __restrict__ input and float* __restrict__ output",
          CHAPTER_TAG "[graded]") {
    // What 4b changes is the kernel's declaration, not its results: without these
    // qualifiers the kernel computes the same numbers, only without the read-only data
    // cache. So this reads the declaration from the source file, on any backend.
    const std::string source = tutorial::read_chapter_source(CHAPTER_FOLDER, "moving_average.cu");
    const std::string parameters = tutorial::kernel_parameter_list(source, "moving_average_readonly_kernel");
    INFO("moving_average.cu declares: __global__ void moving_average_readonly_kernel(" << parameters << ")");
    REQUIRE_FALSE(parameters.empty());
    const std::string input = parameters.substr(0, parameters.find(','));
    const std::string rest = parameters.substr(std::min(parameters.size(), input.size() + 2));  // past ", "
    const std::string output = rest.substr(0, rest.find(','));
    const auto has = [](const std::string& text, const char* word) {
        return std::regex_search(text, std::regex(std::string("(^|[^A-Za-z0-9_])") + word + "($|[^A-Za-z0-9_])"));
    };
    if (!has(input, "const")) {
        FAIL(tutorial::wrap_report_text(
            "The input parameter, `" + input + "`, is not `const float*`: the kernel only reads input, and saying "
            "so (const) is half of what lets the compiler load it through the read-only data cache "
            "(ld.global.nc)."));
    }
    if (!has(input, "__restrict__") || !has(output, "__restrict__")) {
        FAIL(tutorial::wrap_report_text(
            "`" + input + "` and `" + output + "` must both be __restrict__: the promise that input and output "
            "do not overlap, so nothing the kernel writes can change what it reads. Without it the compiler may "
            "not use the read-only data cache (ld.global.nc) for input, and " STEP("b") " is the naive kernel again."));
    }
    SUCCEED();
}

TEST_CASE("moving_average_shared refuses a window past the GPU's shared-memory limit, naming both",
          CHAPTER_TAG "[gpu]") {
    int device = 0, limit = 0;
    REQUIRE(cudaGetDevice(&device) == cudaSuccess);
    REQUIRE(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) == cudaSuccess);
    // The first window whose span does not fit.
    const int window = limit / static_cast<int>(sizeof(float)) - B + 2;
    const std::size_t request = moving_average_shared_bytes(window);
    REQUIRE(request > static_cast<std::size_t>(limit));
    tutorial::DeviceBuffer<float> input(static_cast<std::size_t>(window)), output(1);
    try {
        moving_average_shared(input.data(), output.data(), window, window);
        FAIL("a window needing " << request << " bytes of shared memory per block, more than the GPU's "
                                 << limit << ", raised no error");
    } catch (const tutorial::CudaError& error) {
        FAIL("expected a clear std::invalid_argument naming the limit and the request, got a CUDA error: "
             << error.what());
    } catch (const std::exception& error) {
        const std::string text = error.what();
        INFO(text);
        CHECK(text.find("moving_average_shared") != std::string::npos);
        CHECK(text.find(std::to_string(request)) != std::string::npos);
        CHECK(text.find(std::to_string(limit)) != std::string::npos);
    }
}

TEST_CASE("moving_average_naive rejects bad sizes, windows and null pointers, naming the argument", CHAPTER_TAG) {
    check_rejects_bad_arguments(moving_average_naive, "moving_average_naive");
}

TEST_CASE("moving_average_readonly rejects bad sizes, windows and null pointers, naming the argument",
          CHAPTER_TAG) {
    check_rejects_bad_arguments(moving_average_readonly, "moving_average_readonly");
}

TEST_CASE("moving_average_shared rejects bad sizes, windows and null pointers, naming the argument", CHAPTER_TAG) {
    check_rejects_bad_arguments(moving_average_shared, "moving_average_shared");
}

// The CPU reference this chapter is checked against must itself be right.
TEST_CASE("moving_average_reference averages each window, with a tolerance from the window", CHAPTER_TAG "[reference]") {
    const auto out = tutorial::moving_average_reference({1, 2, 3, -4}, 2);
    CHECK(out.value == std::vector<double>{1.5, 2.5, -0.5});
    // N - 1 additions and a division (or a reciprocal and a multiplication): gamma_{N+1}.
    CHECK(out.tolerance[2] == Approx(tutorial::float_sum_error_factor(3) * 7 / 2));
    const auto whole = tutorial::moving_average_reference({4, 8}, 2);
    CHECK(whole.value == std::vector<double>{6});
    REQUIRE_THROWS_AS(tutorial::moving_average_reference({1, 2}, 3), std::invalid_argument);
    REQUIRE_THROWS_AS(tutorial::moving_average_reference({1, 2}, 0), std::invalid_argument);
}

// ---- 4d (going further): O(1) work per output. Tagged [extra]: the chapter is done without it.

namespace {

constexpr int kPrefixSpan = kMovingAverageBlock * kPrefixItems;  // outputs per block of 4d

// Chapter 4's cases, and windows and output counts around 4d's span of 2048 outputs per
// block: a window ending just inside, at and past the span, and one several spans long
// (whose middle sum is a block-wide sum), with output counts that are not multiples of
// the 8 per thread or the 4 of a float4.
std::vector<SignalCase> prefix_signal_cases() {
    std::vector<SignalCase> cases = signal_cases();
    for (int window : {3, kPrefixSpan - 1, kPrefixSpan, kPrefixSpan + 1, 3 * kPrefixSpan + 5}) {
        for (int outputs : {1, 7, kPrefixSpan - 1, kPrefixSpan + 1, 2 * kPrefixSpan + 13}) {
            cases.push_back({window + outputs - 1, window});
        }
    }
    return cases;
}

// 4d's own error bound. It sums in double: each prefix, the middle sum and their
// difference are sums of at most span + window + 2 terms, each within γ_n (in double,
// u = 2⁻⁵³) of the exact sum times the sum of the magnitudes, at most A = Σ|input|; the
// three of them and the two roundings of their difference stay within 6·γ_n·A, and the
// division by the window within one more double rounding. The result is then rounded
// to float once: u = 2⁻²⁴ of its value. So
//     |got − exact| ≤ 2⁻²⁴·|exact| + 6·γ_n(double)·A / window + 2⁻⁵²·|exact|.
// This is about a thousand times tighter than the float bound of 4a-4c for a window of
// 64, so a kernel that accumulates its prefix sums in float fails it.
tutorial::ExpectedOutput prefix_expected(const std::vector<float>& input, int window, int span = kPrefixSpan) {
    tutorial::ExpectedOutput expected = tutorial::moving_average_reference(input, window);
    double magnitude = 0.0;
    for (float x : input) magnitude += std::fabs(static_cast<double>(x));
    const double n = span + static_cast<double>(window) + 2.0;
    const double u_double = std::ldexp(1.0, -53), u_float = std::ldexp(1.0, -24);
    const double gamma_double = n * u_double / (1.0 - n * u_double);
    for (std::size_t i = 0; i < expected.value.size(); ++i) {
        const double v = std::fabs(expected.value[i]);
        expected.tolerance[i] = u_float * v + 6.0 * gamma_double * magnitude / window + 2.0 * u_double * v;
    }
    return expected;
}

tutorial::ComparisonReport run_prefix_case(const SignalCase& c, int offset,
                                           const MovingAverage& moving_average = moving_average_prefix,
                                           int span = kPrefixSpan) {
    const std::uint64_t seed = tutorial::derive_seed(tutorial::run_seed(), {c.size, c.window, offset});
    const std::vector<float> input = tutorial::random_floats(static_cast<std::size_t>(c.size), seed);
    const int outputs = c.outputs();
    // The arrays start `offset` floats into their buffers: 0 is 16-byte aligned, 1..3 are not.
    // NaN guards around the input: an output whose window reads outside it is NaN.
    const tutorial::DeviceBuffer<float> device_input =
        tutorial::guarded_input(input, static_cast<std::size_t>(offset), std::numeric_limits<float>::quiet_NaN());
    tutorial::DeviceBuffer<float> device_output(static_cast<std::size_t>(outputs + offset));
    device_output.poison();
    moving_average(device_input.data() + offset, device_output.data() + offset, c.size, c.window);
    const std::vector<float> all = device_output.download();

    return tutorial::compare_with_tolerance(std::vector<float>(all.begin() + offset, all.end()),
                                            prefix_expected(input, c.window, span),
                                            signal_layout(outputs, span, c.window - 1));
}

// The two sweeps of a prefix-sum step (4d, 4e), whose blocks cover `span` outputs: every
// case of `cases`, one report for every case as for 4a-4c; then each case of `misaligned`
// on arrays that start 1, 2 and 3 floats into their buffers. With `chunk` (4e, which reads
// a block's inputs a chunk at a time), the inputs its first block walks are a parameter
// too, in chunks, so that a mistake in passing from one chunk to the next shows as "more
// than one chunk"; 0 for a window above `one_pass_window`, which 4e leaves to 4d.
std::vector<tutorial::ShapeSweep> prefix_sweeps(const std::string& name, const MovingAverage& moving_average,
                                                int span, const std::vector<SignalCase>& cases,
                                                const std::vector<SignalCase>& misaligned, int chunk = 0,
                                                int one_pass_window = 0) {
    tutorial::ShapeSweep aligned(name, tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    for (const SignalCase& c : cases) {
        std::ostringstream label;
        label << c;
        std::vector<tutorial::ShapeParameter> parameters{{"size", c.size, 0, "", ""}, {"window", c.window, 0, "", ""},
                                                         {"outputs", c.outputs(), span, "", "block"}};
        if (chunk > 0) {
            const int walked = c.window <= one_pass_window ? std::min(c.outputs(), span) + c.window - 1 : 0;
            parameters.push_back({"the inputs the first block walks", walked, chunk, "", "chunk"});
        }
        aligned.run(label.str(), parameters, [&] { return run_prefix_case(c, 0, moving_average, span); });
    }
    tutorial::ShapeSweep unaligned(name + " on arrays that do not start on 16 bytes",
                                   tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    for (const int offset : {1, 2, 3}) {
        for (const SignalCase& c : misaligned) {
            std::ostringstream label;
            label << c << ", arrays starting " << offset << (offset == 1 ? " float" : " floats") << " into their buffers";
            unaligned.run(label.str(), {{"offset", offset, 0, "", ""}, {"size", c.size, 0, "", ""}, {"window", c.window, 0, "", ""}},
                          [&] { return run_prefix_case(c, offset, moving_average, span); });
        }
    }
    return {aligned, unaligned};
}

}  // namespace

TEST_CASE(STEP("d") ": moving_average_prefix is within its own error bound for every size and window, on arrays aligned or not",
          CHAPTER_TAG "[extra][gpu]") {
    // Both sweeps in one test case: the first failing one in full, the other in a line.
    const std::vector<tutorial::ShapeSweep> sweeps =
        prefix_sweeps("moving_average_prefix", moving_average_prefix, kPrefixSpan, prefix_signal_cases(),
                      {SignalCase{5000, 64}, SignalCase{5003, 255}, SignalCase{3 * kPrefixSpan, 8}});
    REQUIRE_SWEEPS(sweeps);
}

TEST_CASE(STEP("d") ": moving_average_prefix rejects bad sizes, windows and null pointers, naming the argument",
          CHAPTER_TAG "[extra]") {
    check_rejects_bad_arguments(moving_average_prefix, "moving_average_prefix");
}

// ---- 4e (going further): one pass. Tagged [extra]: the chapter is done without it.

namespace {

constexpr int kChunk = kMovingAverageBlock * kPrefixItems;  // inputs per chunk of 4e

// Chapter 4's cases, then windows around 4e's chunk of 2048 inputs (the longest window it
// keeps in its ring, and one past it, which goes to 4d) and output counts around its block's
// span of 32768 outputs: one output, a chunk's worth less or more one, a span and one, so
// that a block's last chunk is partial and a second block starts mid-stream.
std::vector<SignalCase> stream_signal_cases() {
    std::vector<SignalCase> cases = signal_cases();
    for (int window : {1, 3, 64, 1025, kStreamMaxWindow, kStreamMaxWindow + 1}) {
        for (int outputs : {1, kChunk - 1, kChunk + 1, kStreamSpan + 1}) {
            cases.push_back({window + outputs - 1, window});
        }
    }
    return cases;
}

}  // namespace

TEST_CASE(STEP("e") ": moving_average_stream is within its own error bound across chunks and blocks, on arrays aligned or not",
          CHAPTER_TAG "[extra][gpu]") {
    REQUIRE(kStreamSpan == 16 * kChunk);
    // Both sweeps in one test case: the first failing one in full, the other in a line. The
    // prefix sums run over a block's whole span and window, in double: 4d's bound for that
    // length.
    const std::vector<tutorial::ShapeSweep> sweeps =
        prefix_sweeps("moving_average_stream", moving_average_stream, kStreamSpan, stream_signal_cases(),
                      {SignalCase{5000, 64}, SignalCase{5003, 255}, SignalCase{kStreamSpan + 1024, 1025}}, kChunk,
                      kStreamMaxWindow);
    REQUIRE_SWEEPS(sweeps);
}

TEST_CASE(STEP("e") ": moving_average_stream rejects bad sizes, windows and null pointers, naming the argument",
          CHAPTER_TAG "[extra]") {
    check_rejects_bad_arguments(moving_average_stream, "moving_average_stream");
}
