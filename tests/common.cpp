// Tests of common/: references, comparison reports and the sentences they print. With
// common_sweeps.cpp (sweeps over shapes) and common_inputs.cpp (seeds, files, argument
// and CUDA error checks), they run with `make test` and in `make check`.
#include "common_support.h"

using namespace tutorial;
using namespace common_tests;

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
    // The map shows the 4 x 4 tile gap before the last column.
    check_says(report.text, {"C is wrong at 4 of 25 elements", "C(0, 4): expected 0, got 3 (error 3, allowed 0.5)",
                             "SEED=77", "Only the last, partial tiles are wrong (columns 4..4", "  .... X\n"});
    INFO(report.text);
    CHECK(report.wrong == 4);
    CHECK(report.first.size() == 4);
    CHECK(report.first[0].row == 0);
    CHECK(report.first[0].col == 4);
}

TEST_CASE("a 1D output wrong only in its last outputs names an off-by-one, not the partial tile", "[common]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (long long outputs : {1000, 512}) {  // not a multiple of the 256-output block, and one
        std::vector<float> got(static_cast<std::size_t>(outputs), 0.0f);
        got.back() = nan;
        const auto report = compare_with_tolerance(got, zeros(outputs), layout_of_blocks(outputs, 256));
        check_says(report.text,
                   {"Only the last output (index " + std::to_string(outputs - 1) + ") is wrong, still the poison: no",
                    "bounds check with > where >= belongs"},
                   {"partial tiles"});
        CHECK(report.cause.find("Only the last output") == 0);
    }
    // Written, but wrong: no talk of the poison.
    std::vector<float> got(300, 0.0f);
    got[298] = got[299] = 4.0f;
    const auto report = compare_with_tolerance(got, zeros(300), layout_of_blocks(300, 256));
    check_says(report.text, {"Only the last 2 outputs (from index 298) are wrong: look at what the kernel does"},
               {"poison: no"});
}

TEST_CASE("a comparison report says when nothing was written at all", "[common]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto report = compare_with_tolerance(std::vector<float>(12, nan), zeros(12), layout_of(3, 4, 0));
    // A map of nothing but X is one line instead.
    check_says(report.text,
               {"Every element is wrong", "NaN poison", "Largest error at (0, 0): the value there is NaN.",
                "Map of C (3 rows x 4 columns): not drawn, since every element is wrong."},
               {"XXXX", "Largest error inf"});
    INFO(report.text);
    CHECK(report.wrong == 12);
}

TEST_CASE("a large output gets a coarse map, one character per tile", "[common]") {
    std::vector<float> got(100 * 100, 0.0f);
    got[99 * 100 + 99] = 1.0f;  // one wrong element, in the bottom-right tile
    const auto report = compare_with_tolerance(got, zeros(100 * 100), layout_of(100, 100, 16));
    check_says(report.text, {"one character per 16 rows x 16 columns of elements", "  ......x\n"});
    INFO(report.text);
    CHECK(report.wrong == 1);
    CHECK(contains_phrase(report.text, "... and") == false);
}

TEST_CASE("an exact comparison of bytes finds a one-off error and names the border ring", "[common]") {
    std::vector<std::uint8_t> expected = random_bytes(36, 3), got = expected;
    got[0] = static_cast<std::uint8_t>(got[0] + 1);  // a corner
    OutputLayout layout = layout_of(6, 6, 0);
    layout.name = "image";
    layout.border = 1;
    const auto report = compare_exact(got, expected, layout);
    check_says(report.text, {"image(0, 0)", "within 1 of the image border"});
    INFO(report.text);
    CHECK(report.wrong == 1);
}


TEST_CASE("an exact comparison whose wrong elements are all off by 1 names a rounding", "[common]") {
    std::vector<std::uint8_t> expected = random_bytes(40, 5), got = expected;
    for (int i : {3, 17, 29}) got[i] = static_cast<std::uint8_t>(expected[i] == 255 ? 254 : expected[i] + 1);
    got[11] = static_cast<std::uint8_t>(expected[11] == 0 ? 1 : expected[11] - 1);
    const auto report = compare_exact(got, expected, layout_of(5, 8, 0));
    check_says(report.text, {"Every wrong element is off by exactly 1: a rounding"});
    got[29] = static_cast<std::uint8_t>(expected[29] ^ 0x40);  // one off by 64: no rounding
    CHECK_FALSE(contains_phrase(compare_exact(got, expected, layout_of(5, 8, 0)).text, "off by exactly 1"));
}

TEST_CASE("a report says when the wrong bytes still hold the poison", "[common]") {
    std::vector<std::uint8_t> expected = random_bytes(20, 8), got = expected;
    got[7] = 0xFF;
    expected[7] = 0x10;
    OutputLayout layout = layout_of(4, 5, 0);
    layout.poison = 0xFF;
    const auto report = compare_exact(got, expected, layout);
    check_says(report.text, {"Every wrong element holds 255, the poison the test wrote before the run"});
}

TEST_CASE("a report names errors along the seams between stencil tiles", "[common]") {
    // 40 x 70 image in 16 x 32 tiles, radius 1: wrong on both sides of the seam between
    // the first and second tile columns (columns 31 and 32), away from the image border.
    std::vector<std::uint8_t> expected(40 * 70, 100), got = expected;
    for (int r = 5; r < 12; ++r) {
        got[r * 70 + 31] = 7;
        got[r * 70 + 32] = 7;
    }
    OutputLayout layout;
    layout.name = "output";
    layout.rows = 40;
    layout.cols = 70;
    layout.tile_rows = 16;
    layout.tile_cols = 32;
    layout.border = 1;
    const auto report = compare_exact(got, expected, layout);
    check_says(report.text, {"Only elements within 1 of the edge of a tile (16 rows x 32 columns) are wrong", "halo"},
               {"image border"});

    SECTION("errors only on the image border are the border ring, not the seams") {
        std::vector<std::uint8_t> ring = expected;
        ring[0] = ring[69] = ring[39 * 70 + 5] = 7;
        const auto ring_report = compare_exact(ring, expected, layout);
        check_says(ring_report.text, {"within 1 of the image border"}, {"seams"});
    }
    SECTION("an error in the middle of a tile is no seam") {
        std::vector<std::uint8_t> middle = got;
        middle[8 * 70 + 15] = 7;
        const auto middle_report = compare_exact(middle, expected, layout);
        check_says(middle_report.text, {}, {"seams"});
    }
}

TEST_CASE("a report says the halo was not loaded when the last N-1 outputs of each block are wrong", "[common]") {
    // 1000 outputs in blocks of 256, window 64: outputs 193..255 of each block read past
    // the block's own inputs. The last block (768..999) has them too, at 961..999.
    const long long outputs = 1000, block = 256, halo = 63;
    OutputLayout layout = layout_of_blocks(outputs, block);
    layout.name = "output";
    layout.halo = halo;
    std::vector<float> got = halo_outputs_wrong(outputs, block, halo);
    const auto report = compare_with_tolerance(got, zeros(outputs), layout);
    // A missing barrier between the loads and the sums wrongs the same outputs: both named.
    check_says(report.text, {"exactly the last N-1 = 63 outputs of each block of 256", "the halo was not loaded",
                             "a missing __syncthreads() between the loads and the sums"});
    INFO(report.text);
    CHECK(report.wrong == 3 * 63 + 39);

    SECTION("some of them only: the halo was loaded in part") {
        got[255] = 0.0f;
        const auto part = compare_with_tolerance(got, zeros(outputs), layout);
        check_says(part.text, {"Every wrong output is among the last N-1 = 63 outputs of its block"});
    }
    SECTION("one output outside the halo breaks the pattern") {
        got[10] = 5.0f;
        const auto other = compare_with_tolerance(got, zeros(outputs), layout);
        check_says(other.text, {}, {"halo"});
    }
}

// Every pattern sentence is checked twice: on data where it must fire, and on data
// where it would be true of every element yet says nothing (the region covers the whole
// output), or where the kernel has no such thing as the sentence blames.
TEST_CASE("the partial-tile sentence needs a full tile beside the partial ones", "[common][patterns]") {
    SECTION("fires: 20 x 20 in 16 x 16 tiles, wrong only in rows 16..19") {
        std::vector<float> got(400, 0.0f);
        for (int i = 16 * 20; i < 400; ++i) got[i] = 2.0f;
        const auto report = compare_with_tolerance(got, zeros(400), layout_of(20, 20, 16));
        check_says(report.text, {"Only the last, partial tiles are wrong (rows 16..19; tiles are 16 rows x 16 "
                                 "columns)"});
    }
    SECTION("silent: a 5 x 7 output is all one partial tile of 16 x 16") {
        std::vector<float> got(35, 2.0f);
        got[0] = 0.0f;  // one right element, so that the region sentences are considered
        const auto report = compare_with_tolerance(got, zeros(35), layout_of(5, 7, 16));
        check_says(report.text, {}, {"partial"});
        INFO(report.text);
        CHECK(report.wrong == 34);
    }
    SECTION("silent: a 1 x 1 grid on 17 x 17 says the grid is one block, not partial tiles") {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        std::vector<float> got(17 * 17, nan);
        for (int r = 0; r < 16; ++r)
            for (int c = 0; c < 16; ++c) got[r * 17 + c] = 0.0f;
        const auto report = compare_with_tolerance(got, zeros(17 * 17), layout_of(17, 17, 16));
        check_says(report.text, {"Only the first tile (16 rows x 16 columns at the top left) is right", "single block"},
                   {"partial", "swapped"});
    }
    SECTION("silent: swapped row and col on 20 x 20 is wrong off the diagonal, in full tiles too") {
        std::vector<float> got(400, 0.0f);
        std::vector<double> value(400), tolerance(400, 1e-6);
        for (int r = 0; r < 20; ++r)
            for (int c = 0; c < 20; ++c) {
                value[r * 20 + c] = r * 20 + c;
                got[r * 20 + c] = static_cast<float>(c * 20 + r);
            }
        const auto report = compare_with_tolerance(got, {value, tolerance}, layout_of(20, 20, 16));
        check_says(report.text, {}, {"partial", "first tile"});
        INFO(report.text);
        CHECK(report.wrong == 380);
    }
}

TEST_CASE("the first-tile sentence fires only when exactly the first tile is right", "[common][patterns]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> got(40 * 40, nan);
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) got[r * 40 + c] = 0.0f;
    SECTION("fires: the rest untouched on a square grid of tiles, a grid of one block") {
        const auto report = compare_with_tolerance(got, zeros(1600), layout_of(40, 40, 16));
        check_says(report.text, {"Only the first tile", "as if the grid were a single block"}, {"swapped"});
    }
    SECTION("fires: the rest untouched on a grid of tiles that is not square, both causes named") {
        // Chapter 1 with row and column swapped on 15 x 17 (M x N) leaves this picture as
        // well as a grid of one block does (its launch test passing): the sentence may not
        // pick one.
        std::vector<float> narrow(15 * 17, nan);
        for (int r = 0; r < 15; ++r)
            for (int c = 0; c < 16; ++c) narrow[r * 17 + c] = 0.0f;
        const auto report = compare_with_tolerance(narrow, zeros(15 * 17), layout_of(15, 17, 16));
        check_says(report.text, {"Only the first tile", "Either the grid is a single block",
                                 "or the rows and columns are swapped", "each thread's row and column",
                                 "or the grid's x and y"},
                   {"as if the grid were a single block", "Check the launch configuration."});
    }
    SECTION("fires: the rest written wrong, row and column from the wrong blockIdx, never a single block") {
        // Like chapter 1 with row and column swapped on 40 x 24 (M x N): block (bx, by)
        // writes the elements of block (by, bx), so only block (0,0) is right.
        std::vector<float> written(40 * 40);
        for (int r = 0; r < 40; ++r)
            for (int c = 0; c < 40; ++c) written[r * 40 + c] = (r < 16 && c < 16) ? 0.0f : 3.0f;
        const auto report = compare_with_tolerance(written, zeros(1600), layout_of(40, 40, 16));
        check_says(report.text, {"Only the first tile", "the other blocks wrote wrong values", "swapped?"},
                   {"single block", "launch configuration"});
    }
    SECTION("silent when one element of the first tile is wrong too") {
        got[5] = nan;
        const auto report = compare_with_tolerance(got, zeros(1600), layout_of(40, 40, 16));
        check_says(report.text, {}, {"first tile"});
    }
    SECTION("silent when the output is no larger than a tile") {
        std::vector<float> small(12, 0.0f);
        small[11] = 1.0f;
        const auto report = compare_with_tolerance(small, zeros(12), layout_of(3, 4, 16));
        check_says(report.text, {}, {"first tile"});
    }
}

TEST_CASE("the border-ring sentence needs pixels inside the ring", "[common][patterns]") {
    OutputLayout layout = layout_of(4, 9, 0);
    layout.name = "image";
    layout.border = 2;
    std::vector<std::uint8_t> expected = random_bytes(36, 5), got = expected;
    got[1 * 9 + 0] ^= 1;  // row 1, column 0: on the ring
    SECTION("silent: at radius 2 a 4-row image is all ring") {
        const auto report = compare_exact(got, expected, layout);
        check_says(report.text, {}, {"border"});
        INFO(report.text);
        CHECK(report.wrong == 1);
    }
    SECTION("fires: at radius 1 rows 1..2, columns 1..7 are inside") {
        layout.border = 1;
        const auto report = compare_exact(got, expected, layout);
        check_says(report.text, {"Only elements within 1 of the image border are wrong"});
    }
}

TEST_CASE("the halo sentence is for kernels that load a halo", "[common][patterns]") {
    // The naive moving average reads global memory directly: the same wrong outputs
    // must not be blamed on a halo it does not have.
    const long long outputs = 600, block = 256, halo = 9;
    OutputLayout layout = layout_of_blocks(outputs, block);
    const std::vector<float> got = halo_outputs_wrong(outputs, block, halo);
    SECTION("fires for the shared kernel") {
        layout.halo = halo;
        const auto report = compare_with_tolerance(got, zeros(outputs), layout);
        check_says(report.text, {"the halo was not loaded"});
    }
    SECTION("silent for the naive kernel") {
        const auto report = compare_with_tolerance(got, zeros(outputs), layout);
        check_says(report.text, {}, {"halo"});
    }
}

TEST_CASE("the poison and every-element sentences fire only when true", "[common][patterns]") {
    std::vector<float> got(12, 1.0f);
    SECTION("every element wrong, none NaN: no poison sentence") {
        const auto report = compare_with_tolerance(got, zeros(12), layout_of(3, 4, 0));
        check_says(report.text, {"Every element is wrong"}, {"poison"});
    }
    SECTION("some right: no every-element sentence") {
        got[3] = 0.0f;
        got[5] = std::numeric_limits<float>::quiet_NaN();
        got[6] = 0.0f;
        const auto report = compare_with_tolerance(got, zeros(12), layout_of(3, 4, 0));
        check_says(report.text, {}, {"Every element is wrong", "poison"});
    }
}

TEST_CASE("report lines fit 76 columns, so Catch2 never wraps one mid-sentence", "[common][patterns]") {
    // The NaN sentence is the longest; wrapped by Catch2 at its width it once put
    // ", or it was computed..." at the start of a line.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> got(40 * 40, nan);
    got[0] = 0.0f;
    OutputLayout layout = layout_of(40, 40, 16);
    layout.name = "a long output name";
    const auto report = compare_with_tolerance(got, zeros(1600), layout);
    std::istringstream lines(report.text);
    std::string line;
    while (std::getline(lines, line)) {
        INFO(line);
        CHECK(line.size() <= 76);
        const std::size_t first = line.find_first_not_of(' ');
        CHECK((first == std::string::npos || line[first] != ','));
    }
}

TEST_CASE("a report names rows and columns in words, never a bare 8 x 32", "[common][patterns]") {
    // Box mean blocks are 32 x 8 threads (x by y): 8 rows and 32 columns of the image.
    std::vector<std::uint8_t> expected = random_bytes(20 * 70, 6), got = expected;
    got[0] ^= 1;
    OutputLayout layout = layout_of(20, 70, 0);
    layout.name = "output";
    layout.tile_rows = 8;
    layout.tile_cols = 32;
    const auto report = compare_exact(got, expected, layout);
    check_says(report.text, {"output has 20 rows x 70 columns", "Map of output (20 rows x 70 columns)"},
               {"8 x 32", "20 x 70"});
}
