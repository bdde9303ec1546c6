// Tests of common/: references, comparison reports, random inputs, validation and
// CUDA error handling. They run with `make test` and in `make check`.
#include "catch.h"
#include "compare.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "expect.h"
#include "launch_config.h"
#include "random.h"
#include "reference.h"
#include "validate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

using namespace tutorial;

namespace {
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

OutputLayout layout_of(long long rows, long long cols, long long tile) {
    OutputLayout layout;
    layout.rows = rows;
    layout.cols = cols;
    layout.tile_rows = tile;
    layout.tile_cols = tile;
    layout.seed = 77;
    return layout;
}

// A reference of `count` zeros that allows an error of 0.5 everywhere.
ExpectedOutput zeros(long long count) {
    return {std::vector<double>(count, 0.0), std::vector<double>(count, 0.5)};
}
}  // namespace

TEST_CASE("random inputs repeat for a seed, differ between seeds and span their range", "[common]") {
    const auto a = random_floats(1000, 5), b = random_floats(1000, 5), c = random_floats(1000, 6);
    CHECK(a == b);
    CHECK(a != c);
    float lo = 1, hi = -1;
    for (float x : a) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    CHECK(lo >= -1.0f);
    CHECK(lo < -0.9f);
    CHECK(hi < 1.0f);
    CHECK(hi > 0.9f);
    const auto bytes = random_bytes(4096, 9);
    CHECK(*std::min_element(bytes.begin(), bytes.end()) == 0);
    CHECK(*std::max_element(bytes.begin(), bytes.end()) == 255);
    CHECK(derive_seed(1, {2, 3}) != derive_seed(1, {3, 2}));
}

TEST_CASE("the float sum error factor is n times the unit roundoff, to first order", "[common]") {
    CHECK(float_sum_error_factor(1) == Approx(std::ldexp(1.0, -24)).epsilon(1e-6));
    CHECK(float_sum_error_factor(1000) == Approx(1000 * std::ldexp(1.0, -24)).epsilon(1e-4));
}

TEST_CASE("gemm_reference computes a small product exactly, with a tolerance from K", "[common]") {
    // [1 2; 3 4] x [5 6; 7 8] = [19 22; 43 50]; the second column of A is negative in
    // the second test, so the tolerance (a sum of magnitudes) exceeds |value|.
    const auto out = gemm_reference({1, 2, 3, 4}, {5, 6, 7, 8}, 2, 2, 2);
    CHECK(out.value == std::vector<double>{19, 22, 43, 50});
    CHECK(out.tolerance[0] == Approx(19 * float_sum_error_factor(2)));
    const auto mixed = gemm_reference({1, -2}, {5, 7}, 1, 1, 2);
    CHECK(mixed.value[0] == -9);
    CHECK(mixed.tolerance[0] == Approx(19 * float_sum_error_factor(2)));
    REQUIRE_THROWS_AS(gemm_reference({1, 2, 3}, {1, 2}, 2, 1, 2), std::invalid_argument);
}

TEST_CASE("a comparison with nothing wrong passes and writes no report", "[common]") {
    const auto report = compare_with_tolerance(std::vector<float>(6, 0.25f), zeros(6), layout_of(2, 3, 0));
    CHECK(report.ok());
    CHECK(report.text.empty());
}

TEST_CASE("a comparison report counts, lists, locates and maps the wrong elements", "[common]") {
    // 5 x 5 output in 4 x 4 tiles; the last column is wrong in the first four rows.
    std::vector<float> got(25, 0.0f);
    for (int r = 0; r < 4; ++r) got[r * 5 + 4] = 3.0f;
    const auto report = compare_with_tolerance(got, zeros(25), layout_of(5, 5, 4));
    INFO(report.text);
    CHECK(report.wrong == 4);
    CHECK(report.first.size() == 4);
    CHECK(report.first[0].row == 0);
    CHECK(report.first[0].col == 4);
    CHECK(contains(report.text, "C is wrong at 4 of 25 elements"));
    CHECK(contains(report.text, "C(0, 4): expected 0, got 3 (error 3, allowed 0.5)"));
    CHECK(contains(report.text, "SEED=77"));
    CHECK(contains(report.text, "Only the last, partial tiles are wrong (columns 4..4"));
    // The map shows the 4 x 4 tile gap before the last column.
    CHECK(contains(report.text, "  .... X\n"));
}

TEST_CASE("a comparison report says when nothing was written at all", "[common]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto report = compare_with_tolerance(std::vector<float>(12, nan), zeros(12), layout_of(3, 4, 0));
    INFO(report.text);
    CHECK(report.wrong == 12);
    CHECK(contains(report.text, "Every element is wrong"));
    CHECK(contains(report.text, "NaN poison"));
}

TEST_CASE("a large output gets a coarse map, one character per tile", "[common]") {
    std::vector<float> got(100 * 100, 0.0f);
    got[99 * 100 + 99] = 1.0f;  // one wrong element, in the bottom-right tile
    const auto report = compare_with_tolerance(got, zeros(100 * 100), layout_of(100, 100, 16));
    INFO(report.text);
    CHECK(report.wrong == 1);
    CHECK(contains(report.text, "one character per 16 x 16 block"));
    CHECK(contains(report.text, "  ......x\n"));
    CHECK(contains(report.text, "... and") == false);
}

TEST_CASE("an exact comparison of bytes finds a one-off error and names the border ring", "[common]") {
    std::vector<std::uint8_t> expected = random_bytes(36, 3), got = expected;
    got[0] = static_cast<std::uint8_t>(got[0] + 1);  // a corner
    OutputLayout layout = layout_of(6, 6, 0);
    layout.name = "image";
    layout.border = 1;
    const auto report = compare_exact(got, expected, layout);
    INFO(report.text);
    CHECK(report.wrong == 1);
    CHECK(contains(report.text, "image(0, 0)"));
    CHECK(contains(report.text, "within 1 of the image border"));
}

TEST_CASE("argument checks name the function and the argument", "[common]") {
    REQUIRE_THROWS_WITH(require_positive("f", "width", 0), "f: argument width must be at least 1, got 0");
    REQUIRE_THROWS_WITH(require_in_range("f", "radius", 9, 0, 8), "f: argument radius must be between 0 and 8, got 9");
    REQUIRE_THROWS_WITH(require_not_null("f", "input", nullptr), "f: argument input is a null pointer");
    REQUIRE_NOTHROW(require_in_range("f", "radius", 8, 0, 8));
}

TEST_CASE("a CudaError carries the CUDA error text, the call and the place", "[common]") {
    const CudaError error(cudaErrorInvalidValue, "cudaMemcpy(a, b, n, kind)", "file.cu", 12);
    const std::string text = error.what();
    CHECK(contains(text, "cudaErrorInvalidValue"));
    CHECK(contains(text, "invalid argument"));
    CHECK(contains(text, "cudaMemcpy(a, b, n, kind)"));
    CHECK(contains(text, "file.cu:12"));
    CHECK(error.code() == cudaErrorInvalidValue);
}

TEST_CASE("ceil_div rounds up", "[common]") {
    CHECK(ceil_div(1, 16) == 1);
    CHECK(ceil_div(16, 16) == 1);
    CHECK(ceil_div(17, 16) == 2);
    CHECK(ceil_div(8000, 32) == 250);
}

TEST_CASE("a DeviceBuffer round-trips data, poisons to NaN and reports a failed allocation", "[common][gpu]") {
    const auto data = random_floats(1000, 1);
    DeviceBuffer<float> buffer(data);
    CHECK(buffer.download() == data);
    buffer.poison();
    for (float x : buffer.download()) {
        REQUIRE(std::isnan(x));
    }
    try {
        DeviceBuffer<float> too_big(std::size_t{1} << 50);  // 4 PiB
        FAIL("allocating 4 PiB succeeded");
    } catch (const CudaError& error) {
        const std::string text = error.what();
        INFO(text);
        CHECK(error.code() == cudaErrorMemoryAllocation);
        CHECK(contains(text, "cudaMalloc"));
        CHECK(contains(text, "device_buffer.h:"));
    }
}
