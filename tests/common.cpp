// Tests of common/: references, comparison reports, random inputs, validation and
// CUDA error handling. They run with `make test` and in `make check`.
#include "catch.h"
#include "compare.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "expect.h"
#include "image_file.h"
#include "launch_config.h"
#include "random.h"
#include "reference.h"
#include "sweep.h"
#include "validate.h"

#include <algorithm>
#include <array>
#include <functional>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

using namespace tutorial;

namespace {
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

// What a 1D kernel of `block`-output blocks writes when each block skips the `halo`
// inputs after its own: 0 (right, against zeros()) everywhere but the last `halo`
// outputs of each block, 5 there. The layout says the blocks, and no halo yet.
OutputLayout layout_of_blocks(long long outputs, long long block) {
    OutputLayout layout = layout_of(1, outputs, 0);
    layout.tile_rows = 1;
    layout.tile_cols = block;
    return layout;
}
std::vector<float> halo_outputs_wrong(long long outputs, long long block, long long halo) {
    std::vector<float> got(outputs, 0.0f);
    for (long long i = 0; i < outputs; ++i) {
        if (i % block >= block - halo) got[i] = 5.0f;
    }
    return got;
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
    SECTION("fires: the rest untouched, a grid of one block") {
        const auto report = compare_with_tolerance(got, zeros(1600), layout_of(40, 40, 16));
        check_says(report.text, {"Only the first tile", "as if the grid were a single block"}, {"swapped"});
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

namespace {
// A GEMM-like shape for the summary tests: M, N, K cut into tiles of `tile`.
std::vector<ShapeParameter> mnk(long long M, long long N, long long K, long long tile) {
    return {{"M", M, tile, "TILE", "tile"}, {"N", N, tile, "TILE", "tile"}, {"K", K, tile, "TILE", "tile"}};
}

// Runs `failing_when` over the GEMM test shapes at tile 16 and sorts them into failing
// and passing.
std::string summary_of(const std::function<bool(long long, long long, long long)>& failing_when) {
    std::vector<std::vector<ShapeParameter>> failing, passing;
    std::vector<std::string> passing_labels;
    const long long t = 16;
    std::vector<std::array<long long, 3>> shapes{{1, 1, 1}, {7, 13, 11}, {127, 131, 137}, {17, 15, 3}, {257, 129, 67}};
    for (long long M : {t - 1, t, t + 1})
        for (long long N : {t - 1, t, t + 1})
            for (long long K : {t - 1, t, t + 1}) shapes.push_back({M, N, K});
    for (const auto& s : shapes) {
        if (failing_when(s[0], s[1], s[2])) {
            failing.push_back(mnk(s[0], s[1], s[2], t));
        } else {
            passing.push_back(mnk(s[0], s[1], s[2], t));
            passing_labels.push_back("M=" + std::to_string(s[0]) + " N=" + std::to_string(s[1]) +
                                     " K=" + std::to_string(s[2]));
        }
    }
    return summarize_failing_shapes(failing, passing, passing_labels);
}

// A fake case: a report with `wrong` of 16 elements wrong, whose output values are `values`.
ComparisonReport fake_report(int wrong, float value) {
    std::vector<float> got(16, 0.0f);
    for (int i = 0; i < wrong; ++i) got[i] = value;
    return compare_with_tolerance(got, zeros(16), layout_of(4, 4, 2));
}
}  // namespace

TEST_CASE("the cross-shape summary names what the failing shapes share, only when true", "[common][sweep]") {
    SECTION("K not a multiple of the tile") {
        const std::string text = summary_of([](long long, long long, long long K) { return K % 16 != 0; });
        check_says(text, {"it fails only when K is not a multiple of 16", "for none of the"});
    }
    SECTION("more than one tile of rows") {
        const std::string text = summary_of([](long long M, long long, long long) { return M > 16; });
        check_says(text, {"it fails only when M > 16 (more than one tile)"});
    }
    SECTION("M or N not a multiple of the tile") {
        const std::string text =
            summary_of([](long long M, long long N, long long) { return M % 16 != 0 || N % 16 != 0; });
        check_says(text, {"it fails only when M or N is not a multiple of 16"});
    }
    SECTION("N different from K: a wrong stride") {
        const std::string text = summary_of([](long long, long long N, long long K) { return N != K; });
        check_says(text, {"it fails only when N != K"});
    }
    SECTION("every shape") {
        const std::string text = summary_of([](long long, long long, long long) { return true; });
        check_says(text, {"it fails for every shape (32 of 32)"});
    }
    SECTION("silent: one odd shape shares nothing simple with the failing ones") {
        // K not a multiple of 16, except that M=17 N=17 K=15 passes and M=16 N=16 K=16 fails.
        const std::string text = summary_of([](long long M, long long N, long long K) {
            if (M == 17 && N == 17 && K == 15) return false;
            if (M == 16 && N == 16 && K == 16) return true;
            return K % 16 != 0;
        });
        check_says(text, {}, {"fails only when", "every shape"});
    }
    SECTION("a property that also holds for a few passing shapes says so and names them") {
        const std::string text =
            summary_of([](long long M, long long, long long K) { return K % 16 != 0 && M != 7 && M != 127; });
        check_says(text,
                   {"\"K is not a multiple of 16\" holds for every failing shape, and for 2 of the 11 "
                    "shapes that pass",
                    "M=7 N=13 K=11", "M=127 N=131 K=137"},
                   {"fails only when"});
    }
    SECTION("the block of 256 outputs, where the tile differs per parameter") {
        std::vector<std::vector<ShapeParameter>> failing, passing;
        for (long long outputs : {1, 255, 256, 257, 1001}) {
            std::vector<ShapeParameter> p{{"window", 7, 0, "", ""}, {"outputs", outputs, 256, "", "block"}};
            (outputs > 256 ? failing : passing).push_back(p);
        }
        const std::string text = summarize_failing_shapes(failing, passing, {"a", "b", "c"});
        check_says(text, {"it fails only when outputs > 256 (more than one block)"});
    }
}

TEST_CASE("a sweep reports the first failing shape in full, one line for each other, then the summary",
          "[common][sweep]") {
    SweepOptions options;
    options.chapter = 2;
    options.further_listed = 3;
    ShapeSweep sweep("fake_gemm", options);
    for (int K = 1; K <= 8; ++K) {
        sweep.run("K=" + std::to_string(K), mnk(4, 4, K, 4), [&] { return fake_report(K % 4 != 0 ? K : 0, 9.0f); });
    }
    const std::string text = sweep.text();
    INFO(text);
    CHECK(sweep.failed() == 6);
    CHECK(contains_phrase(text, "fake_gemm fails for 6 of 8 shapes."));
    CHECK(contains_phrase(text, "The first failing shape, K=1:\nC is wrong at 1 of 16 elements"));
    CHECK(contains_phrase(text, "Map of C"));
    // One map only: the other shapes get a line each, three of them, then a count.
    CHECK(text.find("Map of C") == text.rfind("Map of C"));
    CHECK(contains_phrase(text, "  K=2: wrong at 2 of 16 elements (12.5%)\n"));
    CHECK(contains_phrase(text, "  ... and 2 more.\n"));
    CHECK(contains_phrase(text, "it fails only when K is not a multiple of 4"));
    SECTION("a long label's line is wrapped at a space, within the report's width") {
        ShapeSweep long_labels("fake_gemm", options);
        for (int K = 1; K <= 3; ++K) {
            long_labels.run("16-bit, n = 4097, num_bins = 12288, uniform below num_bins, starting 3 samples late, K=" +
                                std::to_string(K),
                            mnk(4, 4, K, 4), [&] { return fake_report(K, 9.0f); });
        }
        const std::string long_text = long_labels.text();
        check_says(long_text, {"K=2:"});
        std::istringstream lines(long_text);
        for (std::string line; std::getline(lines, line);) CHECK(line.size() <= tutorial::kReportWidth);
    }
    // Not on a GPU: no second run, no GPU commands.
    CHECK_FALSE(contains_phrase(text, "run to run"));
    CHECK_FALSE(contains_phrase(text, "sanitize"));

    SECTION("VERBOSE shows every failing shape in full") {
        options.verbose = true;
        ShapeSweep verbose("fake_gemm", options);
        for (int K = 1; K <= 8; ++K) {
            verbose.run("K=" + std::to_string(K), mnk(4, 4, K, 4),
                        [&] { return fake_report(K % 4 != 0 ? K : 0, 9.0f); });
        }
        const std::string all = verbose.text();
        INFO(all);
        std::size_t maps = 0;
        for (std::size_t at = all.find("Map of C"); at != std::string::npos; at = all.find("Map of C", at + 1)) ++maps;
        CHECK(maps == 6);
    }
    SECTION("a passing sweep writes nothing") {
        ShapeSweep passing("fake_gemm", options);
        passing.run("K=4", mnk(4, 4, 4, 4), [] { return fake_report(0, 0.0f); });
        CHECK(passing.ok());
        CHECK(passing.text().empty());
    }
    SECTION("an exception fails its shape and the sweep goes on") {
        ShapeSweep throwing("fake_gemm", options);
        throwing.run("K=1", mnk(4, 4, 1, 4), []() -> ComparisonReport { throw std::runtime_error("boom\nmore"); });
        throwing.run("K=4", mnk(4, 4, 4, 4), [] { return fake_report(0, 0.0f); });
        CHECK(throwing.failed() == 1);
        CHECK(contains_phrase(throwing.text(), "It threw an exception: boom"));
        CHECK(contains_phrase(throwing.text(), "fails for 1 of 2 shapes"));
    }
}

TEST_CASE("several sweeps in one test report the first failing one, then a line for each other", "[common][sweep]") {
    SweepOptions options;
    options.chapter = 7;
    std::vector<ShapeSweep> sweeps;
    for (const char* step : {"step_a", "step_b", "step_c"}) {
        ShapeSweep sweep(step, options);
        const bool passes = std::string(step) == "step_b";
        for (int K = 1; K <= 4; ++K) {
            sweep.run("K=" + std::to_string(K), mnk(4, 4, K, 4), [&] { return fake_report(passes ? 0 : K, 9.0f); });
        }
        sweeps.push_back(sweep);
    }
    // report() is the full text only for a run's first failing report; the second sweep
    // that fails is always a line here, whichever the first was.
    const std::string text = sweeps_report(sweeps);
    check_says(text, {"step_a fails for 4 of 4 shapes", "step_c fails for 4 of 4 shapes; the first, K=1:"}, {"step_b"});
    INFO(text);
    CHECK(text.find("Map of C") == text.rfind("Map of C"));
    const std::size_t step_c_at = text.find("step_c");
    CHECK(text.find("Map of C", step_c_at) == std::string::npos);

    SECTION("the brief names the first failing shape and how to see it in full") {
        CHECK(sweeps[0].brief() ==
              "step_a fails for 4 of 4 shapes; the first, K=1: wrong at 1 of 16 elements (6.25%) (VERBOSE=1 "
              "shows it in full).");
        CHECK(sweeps[1].brief().empty());
    }
    SECTION("every sweep passing is no report") {
        std::vector<ShapeSweep> passing{sweeps[1]};
        CHECK(sweeps_report(passing).empty());
    }
}

TEST_CASE("an output that holds nothing but the poison is untouched, even where the poison is right", "[common]") {
    // A byte image poisoned with 0 whose right value is 0 at a few pixels: no thread wrote it.
    OutputLayout layout = layout_of(3, 4, 0);
    layout.name = "output";
    layout.poison = 0;
    std::vector<std::uint8_t> expected = random_bytes(12, 11);
    expected[5] = 0;
    expected[0] = 7;
    const auto untouched = compare_exact(std::vector<std::uint8_t>(12, 0), expected, layout);
    INFO(untouched.text);
    CHECK_FALSE(untouched.ok());
    CHECK(contains_phrase(untouched.untouched, "every element of output holds 0, the poison the test wrote before the run"));
    // One pixel written: not untouched.
    std::vector<std::uint8_t> written(12, 0);
    written[3] = expected[3] == 0 ? 1 : expected[3];
    CHECK(compare_exact(written, expected, layout).untouched.empty());
}

TEST_CASE("a sweep whose every shape is still the poison everywhere says so in a few lines", "[common][sweep]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    SweepOptions options;
    options.chapter = 2;
    const auto sweep_of = [&](int wrong_in_last, float last_value, bool verbose) {
        options.verbose = verbose;
        ShapeSweep sweep("fake_gemm", options);
        for (int K = 1; K <= 4; ++K) {
            sweep.run("K=" + std::to_string(K), mnk(4, 4, K, 4),
                      [&] { return K < 4 ? fake_report(16, nan) : fake_report(wrong_in_last, last_value); });
        }
        return sweep.text();
    };
    SECTION("every element of every shape NaN: one paragraph, no per-shape report") {
        const std::string text = sweep_of(16, nan, false);
        check_says(text,
                   {"fake_gemm fails for 4 of 4 shapes.",
                    "In every shape, every element of C holds NaN, the poison the test wrote",
                    "VERBOSE=1 shows each shape in full."},
                   {"First wrong elements"});
        CHECK(std::count(text.begin(), text.end(), '\n') <= 6);
    }
    SECTION("in a chapter's test program, the first such paragraph names the file to edit and make chapterN hint") {
        find_where_to_work("build/emu/chapters/bin/chapter1-tests");
        const std::string text = sweep_of(16, nan, false);
        const std::string second = sweep_of(16, nan, false);
        find_where_to_work("");
        check_says(text, {"Your code for chapter 1 is in chapters/01-naive-gemm/naive_gemm.cu", "make chapter1 hint"});
        CHECK(std::count(text.begin(), text.end(), '\n') <= 9);
        CHECK_FALSE(contains_phrase(second, "Your code for chapter"));  // once a run: the run's last line says it again
    }
    SECTION("on a GPU too, no commands that look for races: nobody wrote the output") {
        options.on_gpu = true;
        const std::string untouched = sweep_of(16, nan, false);
        const std::string written = sweep_of(3, 7.0f, false);  // the last shape written, wrongly
        options.on_gpu = false;
        check_says(untouched, {"In every shape, every element of C holds NaN"}, {"make chapter2 sanitize"});
        // fires when something was written
        check_says(written, {"make chapter2 sanitize"});
    }
    SECTION("VERBOSE shows them in full all the same") {
        const std::string text = sweep_of(16, nan, true);
        check_says(text, {"First wrong elements"}, {"In every shape"});
    }
    SECTION("one shape with a value written: the full report") {
        const std::string text = sweep_of(16, 9.0f, false);
        check_says(text, {"The first failing shape, K=1"}, {"In every shape"});
    }
    SECTION("one shape partly right: the full report") {
        const std::string text = sweep_of(3, nan, false);
        check_says(text, {}, {"In every shape"});
    }
    SECTION("one shape passing: the full report") {
        const std::string text = sweep_of(0, 0.0f, false);
        check_says(text, {"fails for 3 of 4 shapes"}, {"In every shape"});
    }
}

TEST_CASE("VERBOSE=1 or TUTORIAL_VERBOSE=1 in the environment makes sweeps verbose", "[common][sweep]") {
    const auto verbose_with = [](const char* tutorial_verbose, const char* verbose) {
        tutorial_verbose ? setenv("TUTORIAL_VERBOSE", tutorial_verbose, 1) : unsetenv("TUTORIAL_VERBOSE");
        verbose ? setenv("VERBOSE", verbose, 1) : unsetenv("VERBOSE");
        const bool on = default_sweep_options(3).verbose;
        unsetenv("TUTORIAL_VERBOSE");
        unsetenv("VERBOSE");
        return on;
    };
    CHECK_FALSE(verbose_with(nullptr, nullptr));
    CHECK(verbose_with("1", nullptr));
    CHECK(verbose_with(nullptr, "1"));
    CHECK_FALSE(verbose_with("0", "1"));
    CHECK_FALSE(verbose_with(nullptr, "0"));
    CHECK(default_sweep_options(3).chapter == 3);
#if defined(TUTORIAL_EMU)
    CHECK_FALSE(default_sweep_options(3).on_gpu);  // the CPU backend finds races itself
#endif
}

TEST_CASE("on a GPU a wrong result is run again: a changing result names both its causes", "[common][sweep]") {
    SweepOptions options;
    options.chapter = 2;
    options.on_gpu = true;  // the GPU path, tested on any machine with fake kernels
    SECTION("a result that changes from run to run") {
        int runs = 0;
        ShapeSweep sweep("fake_gemm", options);
        // Like a missing __syncthreads(): the wrong values differ between runs.
        sweep.run("K=5", mnk(4, 4, 5, 4), [&] { return fake_report(3, static_cast<float>(++runs)); });
        const std::string text = sweep.text();
        INFO(text);
        CHECK(runs == 2);
        CHECK(contains_phrase(text, "The result changes from run to run"));
        // Both causes: a race, and a read of shared memory nobody wrote.
        CHECK(contains_phrase(text, "a race, such as a missing __syncthreads() or two threads writing one element"));
        CHECK(contains_phrase(text, "a read of shared memory that no thread wrote"));
        CHECK(contains_phrase(text, "make chapter2 test BACKEND=emu"));
        CHECK(contains_phrase(text, "make chapter2 sanitize"));
    }
    SECTION("a result that is the same twice is no race, and still ends with both commands") {
        ShapeSweep sweep("fake_gemm", options);
        sweep.run("K=5", mnk(4, 4, 5, 4), [&] { return fake_report(3, 7.0f); });
        const std::string text = sweep.text();
        check_says(text,
                   {"the output was the same: no sign of a race, no proof of none", "make chapter2 test BACKEND=emu",
                    "make chapter2 sanitize"},
                   {"changes from run to run"});
    }
    SECTION("a passing shape runs once") {
        int runs = 0;
        ShapeSweep sweep("fake_gemm", options);
        sweep.run("K=4", mnk(4, 4, 4, 4), [&] {
            ++runs;
            return fake_report(0, 0.0f);
        });
        CHECK(runs == 1);
        CHECK(sweep.ok());
    }
}

TEST_CASE("out-of-bounds advice depends on where the faulting thread's own element is", "[common][sweep]") {
    // The CPU backend's message, as it reads for a GEMM with 16 x 16 blocks on a 20 x 20 C.
    const auto message = [](const std::string& block, const std::string& thread) {
        return "CUDA error cudaErrorIllegalAddress (an illegal memory access was encountered; the CPU backend "
               "found:\n  out-of-bounds global memory access in naive_gemm_kernel (launched at naive_gemm.cu:40), "
               "block " + block + ", thread " + thread + ":\n  B[400] is past the end of B) in the execution of "
               "naive_gemm_kernel at naive_gemm.cu:41";
    };
    OutputOwnership ownership;
    ownership.output_name = "C";
    ownership.rows = 20;
    ownership.cols = 20;
    ownership.element_of = [](Index3 block, Index3 thread, long long& row, long long& col) {
        row = block.y * 16 + thread.y;
        col = block.x * 16 + thread.x;
    };
    SECTION("inside: index arithmetic, such as a wrong stride") {
        const std::string advice = out_of_bounds_advice(message("(0,0,0)", "(3,2,0)"), ownership);
        check_says(advice, {"That thread computes C(2, 3), which is inside", "a wrong stride"},
                   {"missing bounds check"});
    }
    SECTION("outside: a missing bounds check") {
        const std::string advice = out_of_bounds_advice(message("(1,0,0)", "(5,2,0)"), ownership);
        check_says(advice, {"That thread computes C(2, 21), which is outside", "a missing bounds check"});
    }
    SECTION("a kernel staging tiles in shared memory: no advice to return early") {
        OutputOwnership staged = ownership;
        staged.stages_in_shared = true;
        const std::string outside = out_of_bounds_advice(message("(1,0,0)", "(5,2,0)"), staged);
        check_says(outside,
                   {"That thread computes C(2, 21), which is outside", "must reach every __syncthreads()",
                    "rather than returning early"},
                   {"must not read or write anything"});
        const std::string inside = out_of_bounds_advice(message("(0,0,0)", "(3,2,0)"), staged);
        check_says(inside, {"which is inside", "the access may be one of those loads"}, {"would hide this bug"});
    }
    SECTION("a tile per thread: no element is named, and a check per element is the advice") {
        for (const ThreadWork work : {ThreadWork::column_per_thread, ThreadWork::tile_per_thread, ThreadWork::warp_tile_per_warp}) {
            OutputOwnership tiles;
            tiles.output_name = "C";
            tiles.rows = 20;
            tiles.cols = 20;
            tiles.work = work;
            tiles.stages_in_shared = true;
            tiles.tile_text = "64 x 64";
            const std::string advice = out_of_bounds_advice(message("(0,0,0)", "(0,0,0)"), tiles);
            check_says(advice,
                       {"each block computes one 64 x 64 tile of C", "needs its own bounds check",
                        "no thread may return early"},
                       {"That thread computes", "would hide this bug"});
        }
    }
    SECTION("no advice for other errors, or without a mapping") {
        CHECK(out_of_bounds_advice("CUDA error cudaErrorInvalidValue (invalid argument)", ownership).empty());
        CHECK(out_of_bounds_advice(message("(0,0,0)", "(3,2,0)"), OutputOwnership{}).empty());
    }
    SECTION("a sweep adds the advice to the exception's text") {
        ShapeSweep sweep("naive_gemm", SweepOptions{});
        sweep.run("M=20 N=20 K=20", mnk(20, 20, 20, 16),
                  [&]() -> ComparisonReport { throw std::runtime_error(message("(0,0,0)", "(3,2,0)")); }, ownership);
        INFO(sweep.text());
        CHECK(contains_phrase(sweep.text(), "a wrong stride"));
        // The one-line form quotes the CPU backend's finding, not the generic first line.
        ShapeSweep two("naive_gemm", SweepOptions{});
        for (int i = 0; i < 2; ++i) {
            two.run("M=20 N=20 K=" + std::to_string(20 + i), mnk(20, 20, 20 + i, 16),
                    [&]() -> ComparisonReport { throw std::runtime_error(message("(0,0,0)", "(3,2,0)")); },
                    ownership);
        }
        INFO(two.text());
        CHECK(contains_phrase(two.text(), "  M=20 N=20 K=21: out-of-bounds global memory access"));
    }
}

namespace {
// Runs this test binary again with @p environment and @p arguments (its results file
// left alone), returning its exit status and what it printed.
int run_this_binary(const std::string& environment, const std::string& arguments, std::string& output) {
    char self[4096];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    REQUIRE(length > 0);
    self[length] = '\0';
    const std::string command =
        "env -u TUTORIAL_RESULTS_FILE " + environment + " '" + std::string(self) + "' " + arguments + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    output.clear();
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
    const int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
}  // namespace

TEST_CASE("a SEED that is not a whole number from 0 to 4294967295 stops the run with status 2", "[common][input]") {
    const std::string seed = GENERATE(as<std::string>{}, "abc", "1.5", "12abc", "-5", " 7", "4294967296",
                                      "99999999999999999999999");
    std::string output;
    const int status = run_this_binary("TUTORIAL_SEED='" + seed + "'", "'[common][patterns]'", output);
    INFO(output);
    CHECK(status == 2);
    CHECK(contains_phrase(output, "SEED=" + seed + " is not a whole number from 0 to 4294967295"));
    CHECK_FALSE(contains_phrase(output, "Inputs come from seed"));
}

TEST_CASE("a good SEED is printed once, and Catch2's seed is the same number", "[common][input]") {
    const std::string seed = GENERATE(as<std::string>{}, "0", "12", "4294967295");
    std::string output;
    const int status = run_this_binary("TUTORIAL_SEED=" + seed, "'[common][patterns]'", output);
    INFO(output);
    CHECK(status == 0);
    CHECK(contains_phrase(output, "Inputs come from seed " + seed + " "));
    // Every number a line calls a seed is this one.
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line)) {
        const std::size_t at = line.find("seed");
        if (at == std::string::npos) continue;
        INFO(line);
        const std::size_t digits = line.find_first_of("0123456789", at);
        REQUIRE(digits != std::string::npos);
        CHECK(line.substr(digits, line.find_first_not_of("0123456789", digits) - digits) == seed);
    }
}

TEST_CASE("SEED=n works for the program run by hand, as the line it prints says; make's TUTORIAL_SEED wins", "[common][input]") {
    std::string output;
    CHECK(run_this_binary("env -u TUTORIAL_SEED SEED=77", "'[common][patterns]'", output) == 0);
    check_says(output, {"Inputs come from seed 77 (change it with SEED=n)"});
    CHECK(run_this_binary("TUTORIAL_SEED=5 SEED=77", "'[common][patterns]'", output) == 0);
    CHECK(contains_phrase(output, "Inputs come from seed 5 "));
    // Without either, the default.
    CHECK(run_this_binary("env -u TUTORIAL_SEED -u SEED", "'[common][patterns]'", output) == 0);
    CHECK(contains_phrase(output, "Inputs come from seed " + std::to_string(kDefaultSeed) + " "));
}

TEST_CASE("a chapter's test program knows the files its student edits; others name none", "[common][input]") {
    find_where_to_work("build/emu/chapters/bin/chapter4-tests");
    const std::string chapter4 = where_to_work();
    find_where_to_work("build/cuda/solutions/bin/chapter4-tests");  // the reference solutions: no student
    const std::string solutions = where_to_work();
    find_where_to_work("build/emu/bin/common-tests");
    const std::string library = where_to_work();
    find_where_to_work("");
    check_says(chapter4, {"Your code for chapter 4 is in chapters/04-moving-average/moving_average.cu",
                          "(its TODO(chapter4) markers); make chapter4 hint gives a hint"});
    CHECK(solutions.empty());
    CHECK(library.empty());
}

TEST_CASE("a test filter (ARGS) that selects no test case is status 2 with a message", "[common][input]") {
    std::string output;
    const int status = run_this_binary("", "'[nonexistent]'", output);
    INFO(output);
    CHECK(status == 2);
    CHECK(contains_phrase(output, "No test case ran: the test filter '[nonexistent]' (ARGS) selects none"));
    SECTION("listing the tags is no failure") {
        CHECK(run_this_binary("", "--list-tags", output) == 0);
    }
}

TEST_CASE("kernel_parameter_list reads a kernel's declaration, comments and line breaks aside", "[common]") {
    const std::string source =
        "// __global__ void k(int commented_out)\n"
        "__global__ void other(int a) {}\n"
        "__global__ void k(const float* __restrict__ input, /* the output */ float*\n"
        "                  output, int size) {\n}\n";
    CHECK(kernel_parameter_list(source, "k") == "const float* __restrict__ input, float* output, int size");
    CHECK(kernel_parameter_list(source, "other") == "int a");
    CHECK(kernel_parameter_list(source, "missing").empty());
}

TEST_CASE("read_chapter_source finds the file of the tree the binary was built from", "[common]") {
    const std::string text = read_chapter_source("04-moving-average", "moving_average.h");
    CHECK(contains_phrase(text, "moving_average_readonly"));
    try {
        read_chapter_source("99-nothing", "x.cu");
        FAIL("reading a file that does not exist raised no error");
    } catch (const std::runtime_error& error) {
        CHECK(contains_phrase(error.what(), "cannot read the chapter's source"));
        CHECK(contains_phrase(error.what(), "/chapters/99-nothing/x.cu"));
    }
}

TEST_CASE("PGM files decode, binary and plain, with comments and a smaller maximum", "[common]") {
    const char file[] = "P5\n# a comment\n3 2\n255\n\x00\x10\x80\xff\x01\x02";
    const GrayImage binary = parse_pgm(std::string(file, sizeof file - 1), "b.pgm");
    CHECK(binary.width == 3);
    CHECK(binary.height == 2);
    CHECK(binary.pixels == std::vector<std::uint8_t>{0x00, 0x10, 0x80, 0xFF, 0x01, 0x02});
    // A maximum of 15 is stretched to 255: 15 -> 255, 5 -> 85.
    const GrayImage plain = parse_pgm("P2 2 2 # size\n15\n0 5\n10 15\n", "p.pgm");
    CHECK(plain.pixels == std::vector<std::uint8_t>{0, 85, 170, 255});
    // What we write, we read back.
    GrayImage image{4, 3, random_bytes(12, 4)};
    const GrayImage again = parse_pgm(encode_pgm(image), "again.pgm");
    CHECK(again.width == 4);
    CHECK(again.height == 3);
    CHECK(again.pixels == image.pixels);
}

TEST_CASE("a malformed or unsupported PGM gets an error saying what is wrong", "[common]") {
    const auto error_of = [](const std::string& bytes) {
        try {
            parse_pgm(bytes, "photo.pgm");
        } catch (const std::runtime_error& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    CHECK(contains_phrase(error_of(""), "photo.pgm: not a PGM image: the file is empty"));
    CHECK(contains_phrase(error_of("P6\n2 2\n255\n"), "colour PPM (P6)"));
    CHECK(contains_phrase(error_of("\x89PNG\r\n"), "it is a PNG file"));
    CHECK(contains_phrase(error_of("P5\n2 2\n65535\n"), "16-bit"));
    CHECK(contains_phrase(error_of("P5\n2 x\n255\n"), "expected the height, found 'x'"));
    CHECK(contains_phrase(error_of("P5\n2 2\n"), "expected the maximum value, found the end of the file"));
    CHECK(contains_phrase(error_of("P5\n0 2\n255\n"), "0 x 2 pixels"));
    CHECK(contains_phrase(error_of("P5\n2 2\n255\nabc"), "truncated PGM: the header says 2 x 2 = 4 pixels, the file holds 3"));
    CHECK(contains_phrase(error_of("P2\n2 1\n100\n5 101\n"), "pixel 1 is 101, above the maximum value 100"));
    CHECK(contains_phrase(error_of("P2\n2 1\n100\n5\n"), "expected the value of pixel 1 of 2"));
    CHECK(contains_phrase(error_of("P5\n99999999999 2\n255\n"), "too large"));
}

TEST_CASE("PGM and PNG files are written and read back from disk", "[common]") {
    const GrayImage image{5, 2, random_bytes(10, 12)};
    const std::string path = "build/test-image-file.pgm";
    write_file(path, encode_pgm(image));
    CHECK(read_pgm(path).pixels == image.pixels);
    std::remove(path.c_str());
    REQUIRE_THROWS_WITH(read_pgm("build/no-such-file.pgm"),
                        "build/no-such-file.pgm: cannot open it: No such file or directory");
    REQUIRE_THROWS_WITH(read_pgm("build"), "build: is a folder, not an image file");
    REQUIRE_THROWS_AS(write_file("build/no-such-folder/x.png", "x"), std::runtime_error);
}

namespace {
std::uint32_t read_u32(const std::string& bytes, std::size_t at) {
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value = (value << 8) | static_cast<std::uint8_t>(bytes[at + i]);
    return value;
}
}  // namespace

TEST_CASE("a PNG holds the image's rows in stored deflate blocks, with the right checksums", "[common]") {
    // 300 x 250 is 75250 bytes of rows with their filter bytes: two stored blocks.
    GrayImage image{300, 250, random_bytes(300 * 250, 13)};
    const std::string png = encode_png(image);
    REQUIRE(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
    REQUIRE(read_u32(png, 8) == 13);
    CHECK(png.substr(12, 4) == "IHDR");
    CHECK(read_u32(png, 16) == 300);
    CHECK(read_u32(png, 20) == 250);
    CHECK(png.substr(24, 5) == std::string("\x08\x00\x00\x00\x00", 5));
    CHECK(read_u32(png, 29) == 0x3E06252F);  // CRC-32 of this IHDR, as zlib's crc32 computes it
    // The last chunk is IEND, whose CRC everyone knows.
    CHECK(png.substr(png.size() - 12) == std::string("\x00\x00\x00\x00IEND\xae\x42\x60\x82", 12));

    // Undo the stored blocks and compare the rows.
    const std::size_t idat = 33;
    const std::uint32_t length = read_u32(png, idat);
    REQUIRE(png.substr(idat + 4, 4) == "IDAT");
    const std::string zlib = png.substr(idat + 8, length);
    CHECK((static_cast<std::uint8_t>(zlib[0]) * 256 + static_cast<std::uint8_t>(zlib[1])) % 31 == 0);
    std::string rows;
    std::size_t at = 2;
    bool last = false;
    while (!last) {
        last = zlib[at] & 1;
        const unsigned len = static_cast<std::uint8_t>(zlib[at + 1]) | static_cast<std::uint8_t>(zlib[at + 2]) << 8;
        const unsigned nlen = static_cast<std::uint8_t>(zlib[at + 3]) | static_cast<std::uint8_t>(zlib[at + 4]) << 8;
        REQUIRE((len ^ nlen) == 0xFFFF);
        rows += zlib.substr(at + 5, len);
        at += 5 + len;
    }
    REQUIRE(rows.size() == 301u * 250u);
    for (int y = 0; y < 250; ++y) {
        REQUIRE(rows[y * 301] == '\0');
        REQUIRE(rows.compare(y * 301 + 1, 300, reinterpret_cast<const char*>(&image.pixels[y * 300]), 300) == 0);
    }
    std::uint32_t a = 1, b = 0;
    for (unsigned char byte : rows) {
        a = (a + byte) % 65521;
        b = (b + a) % 65521;
    }
    CHECK(read_u32(zlib, at) == ((b << 16) | a));
}

TEST_CASE("argument checks name the function and the argument", "[common]") {
    REQUIRE_THROWS_WITH(require_positive("f", "width", 0), "f: argument width must be at least 1, got 0");
    REQUIRE_THROWS_WITH(require_in_range("f", "radius", 9, 0, 8), "f: argument radius must be between 0 and 8, got 9");
    REQUIRE_THROWS_WITH(require_not_null("f", "input", nullptr), "f: argument input is a null pointer");
    REQUIRE_NOTHROW(require_in_range("f", "radius", 8, 0, 8));
    REQUIRE_THROWS_WITH(require_shared_memory_fits("f", 232452, 232448),
                        "f: a block needs 232452 bytes of shared memory, more than this GPU allows one block: "
                        "232448 bytes (cudaDevAttrMaxSharedMemoryPerBlockOptin)");
    REQUIRE_NOTHROW(require_shared_memory_fits("f", 232448, 232448));
}

TEST_CASE("a CudaError carries the CUDA error text, the call and the place", "[common]") {
    const CudaError error(cudaErrorInvalidValue, "cudaMemcpy(a, b, n, kind)", "file.cu", 12);
    const std::string text = error.what();
    CHECK(contains_phrase(text, "cudaErrorInvalidValue"));
    CHECK(contains_phrase(text, "invalid argument"));
    CHECK(contains_phrase(text, "cudaMemcpy(a, b, n, kind)"));
    CHECK(contains_phrase(text, "file.cu:12"));
    CHECK(error.code() == cudaErrorInvalidValue);
}

TEST_CASE("after the run's one full report, a failed REQUIRE_MATCH gives its report's first sentence", "[common]") {
    std::vector<std::uint8_t> expected = tutorial::random_bytes(6, 11), got = expected;
    got[4] ^= 0x5a;
    tutorial::OutputLayout layout;
    layout.name = "image";
    layout.rows = 2;
    layout.cols = 3;
    const tutorial::ComparisonReport report = tutorial::compare_exact(got, expected, layout);
    REQUIRE_FALSE(report.ok());
    tutorial::take_full_report();  // the run's one full report is used up now, whoever had it
    const std::string text = tutorial::match_failure_text(report);
    if (tutorial::take_full_report()) {
        WARN("TUTORIAL_VERBOSE is set: every report is whole, so the brief is not checked");
        CHECK(text == report.text);
        return;
    }
    INFO(text);
    CHECK(text.rfind("image is wrong at 1 of 6 elements", 0) == 0);
    CHECK(text.find("VERBOSE=1 shows it in full") != std::string::npos);
    CHECK(std::count(text.begin(), text.end(), '\n') <= 2);
    CHECK(report.text.size() > text.size());
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
        CHECK(contains_phrase(text, "cudaMalloc"));
        CHECK(contains_phrase(text, "device_buffer.h:"));
    }
}
