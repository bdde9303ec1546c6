// Chapter 5 tests: the transpose, naive, through a shared tile and through a padded one;
// going further (5d, tagged [extra]), through 64 x 64 tiles.
// Run them with `make chapter5 test`.
#include "transpose.h"
#include "tutorial_chapter.h"

#include "catch.h"
#include "compare.h"
#include "device_buffer.h"
#include "expect.h"
#include "random.h"
#include "sweep.h"
#include "transpose_reference.h"

#include <functional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Transpose = std::function<void(const float*, float*, int, int)>;

struct MatrixCase {
    int rows;
    int cols;
};

std::ostream& operator<<(std::ostream& out, const MatrixCase& c) {
    return out << "a " << c.rows << " x " << c.cols << " input (" << c.cols << " x " << c.rows << " output)";
}

constexpr int T = kTransposeTile;

// The shapes every transpose must get right.
std::vector<MatrixCase> matrix_cases() {
    std::vector<MatrixCase> cases{
        {1, 1},                 // one element
        {1, 1000}, {1000, 1},   // a single row, a single column: one tile high or wide
        {3, 1000}, {1000, 3},   // thin strips: many tiles one way, a partial one the other
        {13, 7}, {7, 13},       // primes below the tile
        {101, 53}, {257, 509},  // primes spanning several tiles
    };
    // One tile less one, one tile, and one more, on each side: the partial tiles.
    for (int rows : {T - 1, T, T + 1}) {
        for (int cols : {T - 1, T, T + 1}) {
            cases.push_back({rows, cols});
        }
    }
    cases.push_back({2 * T, 3 * T});  // whole tiles only, not square
    cases.push_back({521, 521});      // a large square (a prime side: partial tiles on two edges)
#ifndef TUTORIAL_EMU
    // Larger ones on a GPU only: on the CPU backend these two add about ten seconds to
    // every run of the chapter's tests, for no bug the cases above miss.
    cases.push_back({2048, 2048});
    cases.push_back({2047, 2049});
#endif
    return cases;
}

// The input holds distinct random floats, so an element copied from the wrong place
// (a row and a column swapped, a tile shifted) is wrong, not equal by chance; the
// output is poisoned with NaN, which is never right, so an element never written shows.
tutorial::ComparisonReport run_transpose(const Transpose& transpose, const MatrixCase& c, int tile = T) {
    const std::uint64_t seed = tutorial::derive_seed(tutorial::run_seed(), {c.rows, c.cols});
    const std::size_t elements = static_cast<std::size_t>(c.rows) * static_cast<std::size_t>(c.cols);
    const std::vector<float> input = tutorial::random_floats(elements, seed);
    tutorial::DeviceBuffer<float> device_input(input), device_output(elements);
    device_output.poison();
    transpose(device_input.data(), device_output.data(), c.rows, c.cols);

    return tutorial::compare_transpose_output(device_output.download(),
                                              tutorial::transpose_reference(input, c.rows, c.cols), c.rows, c.cols, tile);
}

// Every matrix case in one report: the first failing one in full, a line for each other,
// and what the failing shapes share (a side that is no multiple of the tile, say).
tutorial::ShapeSweep sweep_matrix_cases(const std::string& name, const Transpose& transpose,
                                        const std::vector<MatrixCase>& cases = matrix_cases(), int tile = T) {
    tutorial::ShapeSweep sweep(name, tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    for (const MatrixCase& c : cases) {
        std::ostringstream label;
        label << c;
        sweep.run(label.str(), {{"rows", c.rows, tile, "", "tile"}, {"cols", c.cols, tile, "", "tile"}},
                  [&] { return run_transpose(transpose, c, tile); });
    }
    return sweep;
}

// 5d's shapes: every shape above, and the partial tiles of its 64 x 64 tile: a side one
// less, equal to and one more than the tile and twice it, and a matrix of whole tiles
// inside a ring of edge tiles on two sides (where whole and edge tiles meet).
constexpr int W = kTransposeWideTile;
std::vector<MatrixCase> wide_cases() {
    std::vector<MatrixCase> cases = matrix_cases();
    for (int rows : {W - 1, W, W + 1, 2 * W}) {
        for (int cols : {W - 1, W, W + 1, 2 * W}) {
            cases.push_back({rows, cols});
        }
    }
    cases.push_back({3 * W + 5, 2 * W + 61});
    cases.push_back({1, 3 * W + 1});
    cases.push_back({3 * W + 1, 1});
    return cases;
}

void check_rejects_bad_arguments(const Transpose& transpose, const std::string& name) {
    // Validation must reject the call before any kernel could touch these addresses.
    float dummy[2] = {0.0f, 0.0f};
    float* in = &dummy[0];
    float* out = &dummy[1];
    SECTION("rows < 1") {
        REQUIRE_THROWS_WITH(transpose(in, out, 0, 4),
                            name + ": argument rows must be between 1 and " + std::to_string(kTransposeMaxRows) +
                                ", got 0");
    }
    SECTION("more rows than the grid can cover") {
        REQUIRE_THROWS_WITH(transpose(in, out, kTransposeMaxRows + 1, 1),
                            name + ": argument rows must be between 1 and " + std::to_string(kTransposeMaxRows) +
                                ", got " + std::to_string(kTransposeMaxRows + 1));
    }
    SECTION("cols < 1") {
        REQUIRE_THROWS_WITH(transpose(in, out, 4, -3), name + ": argument cols must be at least 1, got -3");
    }
    SECTION("more elements than an int can index") {
        REQUIRE_THROWS_WITH(transpose(in, out, 32768, 65536),
                            name + ": the matrix is 32768 x 65536 elements, more than the 2147483647 an int can "
                                   "index (arguments rows and cols)");
    }
    SECTION("null input") {
        REQUIRE_THROWS_WITH(transpose(nullptr, out, 4, 4), name + ": argument input is a null pointer");
    }
    SECTION("null output") {
        REQUIRE_THROWS_WITH(transpose(in, nullptr, 4, 4), name + ": argument output is a null pointer");
    }
    SECTION("the output is the input") {
        REQUIRE_THROWS_WITH(transpose(in, in, 4, 4),
                            name + ": argument output is the input; the transpose is out of place, so the output "
                                   "needs its own buffer");
    }
    SECTION("the exception type is std::invalid_argument") {
        REQUIRE_THROWS_AS(transpose(in, out, 0, 4), std::invalid_argument);
    }
}

}  // namespace

TEST_CASE("transpose_launch_config gives 32x8 blocks, one per 32x32 tile of the input", CHAPTER_TAG "[graded]") {
    REQUIRE(kTransposeTile == 32);
    REQUIRE(kTransposeBlockRows == 8);
    for (const MatrixCase& c : matrix_cases()) {
        const tutorial::LaunchConfig got = transpose_launch_config(c.rows, c.cols);
        const dim3 grid(tutorial::ceil_div(c.cols, T), tutorial::ceil_div(c.rows, T));
        REQUIRE_LAUNCH_CONFIG(got, grid, dim3(T, kTransposeBlockRows), "For " << c,
                              "x covers the " << c.cols << " input columns: ceil(" << c.cols << " / " << T << ") = "
                                              << grid.x << "; y covers the " << c.rows << " rows: ceil(" << c.rows
                                              << " / " << T << ") = " << grid.y);
    }
}

TEST_CASE("transpose_naive moves every element to its mirror place, bit for bit", CHAPTER_TAG "[gpu][graded]") {
    REQUIRE_SWEEP(sweep_matrix_cases("transpose_naive", transpose_naive));
}

TEST_CASE("transpose_shared moves every element to its mirror place, bit for bit", CHAPTER_TAG "[gpu][graded]") {
    REQUIRE_SWEEP(sweep_matrix_cases("transpose_shared", transpose_shared));
}

TEST_CASE("transpose_padded moves every element to its mirror place, bit for bit", CHAPTER_TAG "[gpu][graded]") {
    REQUIRE_SWEEP(sweep_matrix_cases("transpose_padded", transpose_padded));
}

TEST_CASE("transpose_naive rejects bad sizes, null pointers and an in-place call, naming the argument",
          CHAPTER_TAG) {
    check_rejects_bad_arguments(transpose_naive, "transpose_naive");
}

TEST_CASE("transpose_shared rejects bad sizes, null pointers and an in-place call, naming the argument",
          CHAPTER_TAG) {
    check_rejects_bad_arguments(transpose_shared, "transpose_shared");
}

TEST_CASE("transpose_padded rejects bad sizes, null pointers and an in-place call, naming the argument",
          CHAPTER_TAG) {
    check_rejects_bad_arguments(transpose_padded, "transpose_padded");
}

// ---- 5d (going further): 64 x 64 tiles. Tagged [extra]: the chapter is done without it.

TEST_CASE(STEP("d") ": transpose_wide moves every element to its mirror place, bit for bit, at every edge of its 64 x 64 tiles",
          CHAPTER_TAG "[extra][gpu]") {
    REQUIRE(kTransposeWideTile == 64);
    REQUIRE_SWEEP(sweep_matrix_cases("transpose_wide", transpose_wide, wide_cases(), W));
}

TEST_CASE(STEP("d") ": transpose_wide rejects bad sizes, null pointers and an in-place call, naming the argument",
          CHAPTER_TAG "[extra]") {
    check_rejects_bad_arguments(transpose_wide, "transpose_wide");
}

TEST_CASE("transpose_reference swaps rows and columns, with zero tolerance", CHAPTER_TAG "[reference]") {
    // 2 x 3 -> 3 x 2
    const tutorial::ExpectedOutput t = tutorial::transpose_reference({1, 2, 3, 4, 5, 6}, 2, 3);
    CHECK(t.value == std::vector<double>{1, 4, 2, 5, 3, 6});
    CHECK(t.tolerance == std::vector<double>(6, 0.0));
    CHECK_THROWS_AS(tutorial::transpose_reference({1, 2, 3}, 2, 2), std::invalid_argument);
}

TEST_CASE("require_transpose_arguments names the argument", CHAPTER_TAG "[reference]") {
    float a = 0.0f, b = 0.0f;
    CHECK_THROWS_WITH(tutorial::require_transpose_arguments("f", &a, &b, 0, 3, 100),
                      "f: argument rows must be between 1 and 100, got 0");
    CHECK_THROWS_WITH(tutorial::require_transpose_arguments("f", &a, &a, 2, 3, 100),
                      "f: argument output is the input; the transpose is out of place, so the output needs its own "
                      "buffer");
    CHECK_NOTHROW(tutorial::require_transpose_arguments("f", &a, &b, 2, 3, 100));
}
