// Chapter 6 tests: the sum of n floats, by a shared-memory tree (interleaved, then
// sequential addressing) and by float4 loads and warp shuffles.
// Run them with `make chapter6 test`.
#include "reduction.h"
#include "tutorial_chapter.h"

#include "catch.h"
#include "compare.h"
#include "device_buffer.h"
#include "expect.h"
#include "random.h"
#include "reduction_reference.h"
#include "sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

using Reduce = std::function<void(const float*, float*, int, float*)>;

constexpr int B = kReduceBlock;
// Elements 6c's largest grid covers with one float4 per thread. The grid's size depends
// on the GPU (two waves of it), so it is asked, not assumed.
int one_float4_per_thread() { return 4 * B * reduce_warp_blocks(std::numeric_limits<int>::max()); }

struct SumCase {
    int n;
    int offset = 0;  // floats between the start of the allocation and the input: 1..3 misalign it
};

std::ostream& operator<<(std::ostream& out, const SumCase& c) {
    out << "n = " << c.n;
    if (c.offset != 0) {
        out << ", the input starting " << c.offset << " float" << (c.offset > 1 ? "s" : "")
            << " past a 16-byte boundary";
    }
    return out;
}

// On the CPU backend a million-element sum takes seconds, so there the tree kernels,
// whose indexing the smaller cases already cover, skip the large ones; reduce_warp
// keeps the few that take its grid-stride loop round more than once.
#ifdef TUTORIAL_EMU
constexpr bool kOnCpuBackend = true;
#else
constexpr bool kOnCpuBackend = false;
#endif

std::vector<SumCase> sum_cases(bool grid_stride_rounds) {
    std::vector<SumCase> cases;
    // One element; the float4 tail (n % 4 = 1, 2, 3); a warp less one, a warp, one more;
    // a block less one, a block, one more (one pass of the tree, then two).
    for (int n : {1, 2, 3, 4, 5, 31, 32, 33, 255, 256, 257}) {
        cases.push_back({n});
    }
    cases.push_back({1009});         // a prime
    cases.push_back({4 * B});        // one float4 per thread of one block
    cases.push_back({4 * B + 3});    // and a tail after it
    cases.push_back({B * B});        // two full passes of the tree
    cases.push_back({B * B + 1});    // three passes
    cases.push_back({97 * B + 13});  // 98 blocks: a block count that is a multiple of nothing
    // Misaligned starts: the API takes any float address, so the float4 loads must
    // begin after a scalar head of 1 to 3 elements.
    for (int offset : {1, 2, 3}) {
        for (int n : {1, 2, 3, 5, 1000, 4 * B + 1}) {
            cases.push_back({n, offset});
        }
    }
    if (grid_stride_rounds) {
        const int full = one_float4_per_thread();
        cases.push_back({full - 1});          // 6c's grid just full, one float4 per thread
        cases.push_back({full + 4 * 7 + 2});  // past it: the loop goes round again
        cases.push_back({full + 5, 3});       // and from a misaligned start
        if (!kOnCpuBackend) {
            cases.push_back({3 * full + 999983});  // a few rounds, and an odd tail
        }
    }
    return cases;
}

// Runs `reduce` on `values`, placed `offset` floats into a fresh allocation between NaN
// guards (a read before or past the input makes the sum NaN, on a GPU too), with the sum
// and the workspace poisoned with NaN first, so that a value never written, or a partial
// sum read before it was written, shows.
float run_reduce(const Reduce& reduce, const std::vector<float>& values, int offset) {
    const tutorial::DeviceBuffer<float> input =
        tutorial::guarded_input(values, static_cast<std::size_t>(offset), std::numeric_limits<float>::quiet_NaN());
    tutorial::DeviceBuffer<float> sum(1), workspace(reduce_workspace_floats(static_cast<int>(values.size())));
    sum.poison();
    workspace.poison();
    reduce(input.data() + offset, sum.data(), static_cast<int>(values.size()), workspace.data());
    return sum.download()[0];
}

tutorial::ComparisonReport compare_sum(float got, const tutorial::ExpectedOutput& expected, std::uint64_t seed) {
    tutorial::OutputLayout layout;
    layout.name = "sum";
    layout.seed = seed;
    return tutorial::compare_with_tolerance({got}, expected, layout);
}

// "1, 3, 5, ..., 31 (every 2nd)" or "0, 7, 9": the elements named, compactly.
std::string element_list(const std::vector<int>& elements) {
    std::ostringstream out;
    const bool progression = elements.size() >= 4 && std::adjacent_find(elements.begin() + 1, elements.end(), [&](int a, int b) {
                                 return b - a != elements[1] - elements[0];
                             }) == elements.end();
    if (progression) {
        const int step = elements[1] - elements[0];
        out << elements[0] << ", " << elements[1] << ", " << elements[2] << ", ..., " << elements.back();
        if (step > 1) out << " (every " << step << (step == 2 ? "nd" : step == 3 ? "rd" : "th") << ")";
        return out.str();
    }
    for (std::size_t k = 0; k < elements.size() && k < 8; ++k) out << (k == 0 ? "" : ", ") << elements[k];
    if (elements.size() > 8) out << ", ... (" << elements.size() << " in all)";
    return out.str();
}

// Which elements a wrong sum of n elements counted: 24 elements a run set to 2^0 .. 2^23,
// the others 0. Each power of two counted once leaves its bit in the sum, exactly; a bit
// missing is an element never added. A sum that is no such subset (an element added twice,
// a NaN read) is named by its run. Empty when every element was counted once.
std::string counted_elements(const Reduce& reduce, int n, int offset) {
    std::vector<int> missed, unclear;
    for (int start = 0; start < n; start += 24) {
        const int end = std::min(n, start + 24);
        std::vector<float> values(static_cast<std::size_t>(n), 0.0f);
        for (int i = start; i < end; ++i) values[static_cast<std::size_t>(i)] = std::ldexp(1.0f, i - start);
        const double got = run_reduce(reduce, values, offset);
        const long long all = (1ll << (end - start)) - 1;
        const long long bits = got >= 0.0 && got <= static_cast<double>(all) && got == std::floor(got) ? static_cast<long long>(got) : -1;
        if (bits >= 0 && (bits & ~all) == 0) {
            for (int i = start; i < end; ++i) {
                if (!(bits >> (i - start) & 1)) missed.push_back(i);
            }
        } else {
            for (int i = start; i < end; ++i) unclear.push_back(i);
        }
    }
    std::ostringstream out;
    if (!missed.empty()) {
        out << "Which elements the sum adds, found with element i set to 2^(i % 24), 24 elements a run and the "
               "others 0: " << (missed.size() == 1 ? "element " : "elements ") << element_list(missed) << " ("
            << missed.size() << " of " << n << ") " << (missed.size() == 1 ? "is" : "are") << " never added.";
    }
    if (!unclear.empty()) {
        out << (missed.empty() ? "" : " ") << "With elements " << element_list(unclear)
            << " set to powers of two, the sum is no sum of distinct ones: one of them is added more than "
               "once, or something other than the input is.";
    }
    return out.str();
}

// Up to this many elements a wrong sum is followed by which elements it left out.
constexpr int kCountedElementsUpTo = 256;

// A small wrong sum that the kernel wrote (a sum still the poison says so itself): which
// elements it left out, after the report.
void add_counted_elements(tutorial::ComparisonReport& report, const Reduce& reduce, const SumCase& c) {
    if (report.ok() || c.n > kCountedElementsUpTo || !report.untouched.empty()) return;
    const std::string counted = counted_elements(reduce, c.n, c.offset);
    if (!counted.empty()) report.text += tutorial::wrap_report_text(counted);
}

// Random floats in [-1, 1]: the sum must be within the error bound of the kernel's
// order of additions.
tutorial::ComparisonReport check_random_sum(const Reduce& reduce, const SumCase& c, long long depth) {
    const std::vector<float> values =
        tutorial::random_floats(static_cast<std::size_t>(c.n), tutorial::derive_seed(tutorial::run_seed(), {c.n, c.offset}));
    tutorial::ComparisonReport report =
        compare_sum(run_reduce(reduce, values, c.offset), tutorial::sum_reference(values, depth), tutorial::run_seed());
    add_counted_elements(report, reduce, c);
    return report;
}

// Random small integers whose magnitudes add up to at most 2^24: every partial sum, in
// any order, is then an integer a float holds exactly, so the sum must be exact. A
// missed or doubled element changes it by a whole number.
tutorial::ComparisonReport check_exact_sum(const Reduce& reduce, const SumCase& c) {
    const long long budget = 1ll << 24;
    const int largest = static_cast<int>(std::min<long long>(64, std::max<long long>(1, budget / c.n)));
    const std::vector<float> uniform = tutorial::random_floats(
        static_cast<std::size_t>(c.n), tutorial::derive_seed(tutorial::run_seed(), {c.n, c.offset, 1}), 0.0f, 1.0f);
    std::vector<float> values(uniform.size());
    long long magnitude = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        // -largest .. largest; for n > 2^24 most are 0, and one in ~(n / 2^23) is ±1.
        const double share = c.n > budget ? static_cast<double>(budget) / (2.0 * c.n) : 1.0;
        const double u = uniform[i];
        if (u < share) {
            const double scaled = u / share;  // uniform in [0, 1) again
            long long v = static_cast<long long>(std::floor(scaled * (2 * largest + 1))) - largest;
            if (c.n > budget && v == 0) v = 1;
            values[i] = static_cast<float>(v);
        } else {
            values[i] = 0.0f;
        }
        magnitude += static_cast<long long>(std::fabs(values[i]));
    }
    if (magnitude > budget) {  // the premise of exactness
        throw std::logic_error("check_exact_sum: the integers add up past 2^24, where floats stop being exact");
    }
    tutorial::ComparisonReport report =
        compare_sum(run_reduce(reduce, values, c.offset), tutorial::sum_reference(values, 0), tutorial::run_seed());
    add_counted_elements(report, reduce, c);
    return report;
}

// Every sum case in one report: the first failing one in full, a line for each other,
// and what the failing cases share (an n that is no multiple of the block, say).
// `depth_of(n)` is the tolerance's depth for random floats; without it the sums are of
// small integers and must be exact.
tutorial::ShapeSweep sweep_sum_cases(const std::string& name, const Reduce& reduce, const std::vector<SumCase>& cases,
                                     const std::function<long long(int)>& depth_of) {
    tutorial::ShapeSweep sweep(name, tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    // What n is counted in, for the summary of the failing shapes: 6c's float4 loads; the
    // trees' blocks, one element a thread (a kernel without float4s has no float4 to count).
    const bool float4s = name.rfind("reduce_warp", 0) == 0;
    for (const SumCase& c : cases) {
        std::ostringstream label;
        label << c;
        if (depth_of) {
            label << " (tolerance: " << depth_of(c.n) << " levels of rounding)";
        }
        sweep.run(label.str(),
                  {{"n", c.n, float4s ? 4 : kReduceBlock, "", float4s ? "float4" : "block"}, {"offset", c.offset, 0, "", ""}},
                  [&] {
            return depth_of ? check_random_sum(reduce, c, depth_of(c.n)) : check_exact_sum(reduce, c);
        });
    }
    return sweep;
}

void check_rejects_bad_arguments(const Reduce& reduce, const std::string& name) {
    // Validation must reject the call before any kernel could touch these addresses.
    float dummy[3] = {0.0f, 0.0f, 0.0f};
    float* in = &dummy[0];
    float* sum = &dummy[1];
    float* workspace = &dummy[2];
    SECTION("n < 1") {
        REQUIRE_THROWS_WITH(reduce(in, sum, 0, workspace), name + ": argument n must be at least 1, got 0");
    }
    SECTION("null input") {
        REQUIRE_THROWS_WITH(reduce(nullptr, sum, 4, workspace), name + ": argument input is a null pointer");
    }
    SECTION("null sum") {
        REQUIRE_THROWS_WITH(reduce(in, nullptr, 4, workspace), name + ": argument sum is a null pointer");
    }
    SECTION("null workspace") {
        REQUIRE_THROWS_WITH(reduce(in, sum, 4, nullptr), name + ": argument workspace is a null pointer");
    }
    SECTION("the exception type is std::invalid_argument") {
        REQUIRE_THROWS_AS(reduce(in, sum, -5, workspace), std::invalid_argument);
    }
}

std::uint32_t bits(float x) {
    std::uint32_t b = 0;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

}  // namespace

TEST_CASE("reduce_warp_blocks gives one block per 1024 elements, at most two waves of the GPU", CHAPTER_TAG) {
    REQUIRE(kReduceBlock == 256);
    CHECK(reduce_warp_blocks(1) == 1);
    CHECK(reduce_warp_blocks(4 * B) == 1);
    CHECK(reduce_warp_blocks(4 * B + 1) == 2);
    const int full = reduce_warp_blocks(2147483647);
    int device = 0, multiprocessors = 0;
    REQUIRE(cudaGetDevice(&device) == cudaSuccess);
    REQUIRE(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device) == cudaSuccess);
    INFO("the full grid is " << full << " blocks on " << multiprocessors << " multiprocessors");
    CHECK(full <= kReduceWarpMaxBlocks);
    CHECK((full == kReduceWarpMaxBlocks || full % (2 * multiprocessors) == 0));  // two whole waves
    CHECK(full >= 2 * multiprocessors);
    CHECK(reduce_warp_blocks(4 * B * (full - 1)) == full - 1);
    CHECK(reduce_warp_blocks(4 * B * full) == full);
    CHECK(reduce_warp_blocks(4 * B * full + 1) == full);
}

TEST_CASE("reduce_workspace_floats holds every pass's partial sums", CHAPTER_TAG) {
    CHECK(reduce_workspace_floats(1) == 1);        // 6c's one block: the sum itself, but room for one
    CHECK(reduce_workspace_floats(B) == 1);
    CHECK(reduce_workspace_floats(B + 1) == 2);    // the tree: 2 partial sums, then the sum
    CHECK(reduce_workspace_floats(B * B + 1) == std::size_t(B + 1 + 2));  // 257, then 2, then the sum
    // 2^31 - 1 elements: 8388608 partial sums, then 32768, 128, 1.
    CHECK(reduce_workspace_floats(2147483647) == std::size_t(8388608 + 32768 + 128));
}

TEST_CASE("reduce_interleaved sums random floats within the error bound of its tree", CHAPTER_TAG "[gpu][graded]") {
    REQUIRE_SWEEP(sweep_sum_cases("reduce_interleaved", reduce_interleaved, sum_cases(!kOnCpuBackend),
                                  reduce_tree_depth));
}

TEST_CASE("reduce_sequential sums random floats within the error bound of its tree", CHAPTER_TAG "[gpu][graded]") {
    REQUIRE_SWEEP(sweep_sum_cases("reduce_sequential", reduce_sequential, sum_cases(!kOnCpuBackend),
                                  reduce_tree_depth));
}

TEST_CASE("reduce_warp sums random floats within the error bound of its order of additions", CHAPTER_TAG "[gpu][graded]") {
    REQUIRE_SWEEP(sweep_sum_cases("reduce_warp", reduce_warp, sum_cases(true), reduce_warp_depth));
}

TEST_CASE("every reduction sums small integers exactly, so no element is missed or counted twice",
          CHAPTER_TAG "[gpu][graded]") {
    SECTION("reduce_interleaved") {
        REQUIRE_SWEEP(sweep_sum_cases("reduce_interleaved on small integers", reduce_interleaved,
                                      sum_cases(!kOnCpuBackend), nullptr));
    }
    SECTION("reduce_sequential") {
        REQUIRE_SWEEP(sweep_sum_cases("reduce_sequential on small integers", reduce_sequential,
                                      sum_cases(!kOnCpuBackend), nullptr));
    }
    SECTION("reduce_warp") {
        REQUIRE_SWEEP(sweep_sum_cases("reduce_warp on small integers", reduce_warp, sum_cases(true), nullptr));
    }
}

TEST_CASE("every reduction gives the same sum, bit for bit, when run twice", CHAPTER_TAG "[gpu]") {
    // Large enough for several blocks in every pass (and, on a GPU, for 6c's loop to go round).
    const int n = kOnCpuBackend ? 97 * B + 13 : one_float4_per_thread() + 4 * 7 + 2;
    const std::vector<float> values = tutorial::random_floats(static_cast<std::size_t>(n), tutorial::derive_seed(tutorial::run_seed(), {n, 2}));
    const std::pair<const char*, Reduce> variants[] = {
        {"reduce_interleaved", reduce_interleaved}, {"reduce_sequential", reduce_sequential}, {"reduce_warp", reduce_warp}};
    for (const auto& [name, reduce] : variants) {
        const float first = run_reduce(reduce, values, 0);
        const float second = run_reduce(reduce, values, 0);
        INFO(name << " on n = " << n << ": " << first << " the first time, " << second
                  << " the second: the blocks' partial sums must be added in a fixed order");
        CHECK(bits(first) == bits(second));
    }
}

#ifndef TUTORIAL_EMU
// 2^28 floats are 1 GiB: on the CPU backend one sum takes minutes, so these run on a
// GPU only (the CPU backend does not compile them).
TEST_CASE("every reduction sums 2^28 floats within its error bound, and small integers exactly",
          CHAPTER_TAG "[gpu][large]") {
    // One sweep, so that a run where every reduction fails (a skeleton) reports them in
    // one place: the first in full, a line for each other.
    const std::vector<SumCase> large = {SumCase{1 << 28}};
    const std::tuple<const char*, Reduce, std::function<long long(int)>> variants[] = {
        {"reduce_interleaved", reduce_interleaved, reduce_tree_depth},
        {"reduce_sequential", reduce_sequential, reduce_tree_depth},
        {"reduce_warp", reduce_warp, reduce_warp_depth}};
    std::vector<tutorial::ShapeSweep> sweeps;
    for (const auto& [name, reduce, depth_of] : variants) {
        sweeps.push_back(sweep_sum_cases(std::string(name) + " of 2^28 floats", reduce, large, depth_of));
        sweeps.push_back(sweep_sum_cases(std::string(name) + " of 2^28 small integers", reduce, large, nullptr));
    }
    REQUIRE_SWEEPS(sweeps);
}
#endif

TEST_CASE("reduce_interleaved rejects a bad n and null pointers, naming the argument", CHAPTER_TAG) {
    check_rejects_bad_arguments(reduce_interleaved, "reduce_interleaved");
}

TEST_CASE("reduce_sequential rejects a bad n and null pointers, naming the argument", CHAPTER_TAG) {
    check_rejects_bad_arguments(reduce_sequential, "reduce_sequential");
}

TEST_CASE("reduce_warp rejects a bad n and null pointers, naming the argument", CHAPTER_TAG) {
    check_rejects_bad_arguments(reduce_warp, "reduce_warp");
}

TEST_CASE("sum_reference sums in double, with a tolerance from the depth of the summation", CHAPTER_TAG "[reference]") {
    const std::vector<float> values{0.5f, -2.0f, 1.25f, 3.0f};
    const tutorial::ExpectedOutput s = tutorial::sum_reference(values, 2);
    REQUIRE(s.value.size() == 1);
    CHECK(s.value[0] == 2.75);
    CHECK(s.tolerance[0] == tutorial::float_sum_error_factor(2) * 6.75);  // γ_2 · Σ|x|
    CHECK(tutorial::sum_reference(values, 0).tolerance[0] == 0.0);        // exact, for integer tests
    CHECK_THROWS_AS(tutorial::sum_reference({}, 1), std::invalid_argument);
}

TEST_CASE("require_reduce_arguments names the argument", CHAPTER_TAG "[reference]") {
    float a = 0.0f, b = 0.0f;
    CHECK_THROWS_WITH(tutorial::require_reduce_arguments("g", &a, &b, 0, &b), "g: argument n must be at least 1, got 0");
    CHECK_THROWS_WITH(tutorial::require_reduce_arguments("g", &a, &b, 5, nullptr),
                      "g: argument workspace is a null pointer");
    CHECK_NOTHROW(tutorial::require_reduce_arguments("g", &a, &b, 5, &b));
}
