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
#include "validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
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

// The box mean by its definition: sum the whole clamped box. The reference sums rows
// first; both must agree exactly.
std::vector<std::uint8_t> box_mean_by_definition(const std::vector<std::uint8_t>& image, int width, int height,
                                                 int radius) {
    std::vector<std::uint8_t> mean(image.size());
    const int area = (2 * radius + 1) * (2 * radius + 1);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            int sum = 0;
            for (int dy = -radius; dy <= radius; ++dy) {
                for (int dx = -radius; dx <= radius; ++dx) {
                    sum += image[std::clamp(y + dy, 0, height - 1) * width + std::clamp(x + dx, 0, width - 1)];
                }
            }
            mean[y * width + x] = static_cast<std::uint8_t>((sum + area / 2) / area);
        }
    }
    return mean;
}

TEST_CASE("box_mean_reference clamps to the edge and rounds to nearest", "[common]") {
    // 2 x 2 image [0 9; 18 27], radius 1. The box around (0, 0) clamps to rows 0,0,1 and
    // columns 0,0,1: 0+0+9 + 0+0+9 + 18+18+27 = 81, mean 9.
    const std::vector<std::uint8_t> image{0, 9, 18, 27};
    CHECK(box_mean_reference(image, 2, 2, 1) == std::vector<std::uint8_t>{9, 12, 15, 18});
    // Radius 0 is a copy.
    CHECK(box_mean_reference(image, 2, 2, 0) == image);
    // Rounding: a 3x3 box summing 4 has mean 0.44, rounded to 0; summing 5, 0.56 rounded to 1.
    CHECK(box_mean_reference({0, 0, 0, 0, 4, 0, 0, 0, 0}, 3, 3, 1)[4] == 0);
    CHECK(box_mean_reference({0, 0, 0, 0, 5, 0, 0, 0, 0}, 3, 3, 1)[4] == 1);
    // All 255 at the largest box: 289 * 255 fits an int, and the mean is 255.
    const std::vector<std::uint8_t> white(7 * 5, 255);
    CHECK(box_mean_reference(white, 7, 5, 8) == white);
    REQUIRE_THROWS_AS(box_mean_reference(image, 3, 2, 1), std::invalid_argument);
}

TEST_CASE("box_mean_reference equals the sum over the whole box, for every radius", "[common]") {
    const int width = 23, height = 11;
    const auto image = random_bytes(width * height, 41);
    for (int radius : {0, 1, 2, 5, 8, 12}) {
        INFO("radius " << radius);
        CHECK(box_mean_reference(image, width, height, radius) ==
              box_mean_by_definition(image, width, height, radius));
    }
}

TEST_CASE("moving_average_reference averages each window, with a tolerance from the window", "[common]") {
    const auto out = moving_average_reference({1, 2, 3, -4}, 2);
    CHECK(out.value == std::vector<double>{1.5, 2.5, -0.5});
    // N - 1 additions and a division (or a reciprocal and a multiplication): gamma_{N+1}.
    CHECK(out.tolerance[2] == Approx(float_sum_error_factor(3) * 7 / 2));
    const auto whole = moving_average_reference({4, 8}, 2);
    CHECK(whole.value == std::vector<double>{6});
    REQUIRE_THROWS_AS(moving_average_reference({1, 2}, 3), std::invalid_argument);
    REQUIRE_THROWS_AS(moving_average_reference({1, 2}, 0), std::invalid_argument);
}

// ---- Chapters 5 and 6: transpose and sum references -----------------------------------

TEST_CASE("transpose_reference swaps rows and columns, with zero tolerance", "[common]") {
    // 2 x 3 -> 3 x 2
    const tutorial::ExpectedOutput t = tutorial::transpose_reference({1, 2, 3, 4, 5, 6}, 2, 3);
    CHECK(t.value == std::vector<double>{1, 4, 2, 5, 3, 6});
    CHECK(t.tolerance == std::vector<double>(6, 0.0));
    CHECK_THROWS_AS(tutorial::transpose_reference({1, 2, 3}, 2, 2), std::invalid_argument);
}

TEST_CASE("sum_reference sums in double, with a tolerance from the depth of the summation", "[common]") {
    const std::vector<float> values{0.5f, -2.0f, 1.25f, 3.0f};
    const tutorial::ExpectedOutput s = tutorial::sum_reference(values, 2);
    REQUIRE(s.value.size() == 1);
    CHECK(s.value[0] == 2.75);
    CHECK(s.tolerance[0] == tutorial::float_sum_error_factor(2) * 6.75);  // γ_2 · Σ|x|
    CHECK(tutorial::sum_reference(values, 0).tolerance[0] == 0.0);        // exact, for integer tests
    CHECK_THROWS_AS(tutorial::sum_reference({}, 1), std::invalid_argument);
}

TEST_CASE("transpose and reduction argument checks name the argument", "[common]") {
    float a = 0.0f, b = 0.0f;
    CHECK_THROWS_WITH(tutorial::require_transpose_arguments("f", &a, &b, 0, 3, 100),
                      "f: argument rows must be between 1 and 100, got 0");
    CHECK_THROWS_WITH(tutorial::require_transpose_arguments("f", &a, &a, 2, 3, 100),
                      "f: argument output is the input; the transpose is out of place, so the output needs its own "
                      "buffer");
    CHECK_NOTHROW(tutorial::require_transpose_arguments("f", &a, &b, 2, 3, 100));
    CHECK_THROWS_WITH(tutorial::require_reduce_arguments("g", &a, &b, 0, &b), "g: argument n must be at least 1, got 0");
    CHECK_THROWS_WITH(tutorial::require_reduce_arguments("g", &a, &b, 5, nullptr),
                      "g: argument workspace is a null pointer");
    CHECK_NOTHROW(tutorial::require_reduce_arguments("g", &a, &b, 5, &b));
}

TEST_CASE("a report says when the wrong bytes still hold the poison", "[common]") {
    std::vector<std::uint8_t> expected = random_bytes(20, 8), got = expected;
    got[7] = 0xFF;
    expected[7] = 0x10;
    OutputLayout layout = layout_of(4, 5, 0);
    layout.poison = 0xFF;
    const auto report = compare_exact(got, expected, layout);
    INFO(report.text);
    CHECK(contains(report.text, "Every wrong element holds 255, the poison the test wrote before the run"));
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
    INFO(report.text);
    CHECK(contains(report.text, "Only elements within 1 of the edge of a 16 x 32 tile are wrong"));
    CHECK(contains(report.text, "halo"));
    CHECK_FALSE(contains(report.text, "image border"));

    SECTION("errors only on the image border are the border ring, not the seams") {
        std::vector<std::uint8_t> ring = expected;
        ring[0] = ring[69] = ring[39 * 70 + 5] = 7;
        const auto ring_report = compare_exact(ring, expected, layout);
        INFO(ring_report.text);
        CHECK(contains(ring_report.text, "within 1 of the image border"));
        CHECK_FALSE(contains(ring_report.text, "seams"));
    }
    SECTION("an error in the middle of a tile is no seam") {
        std::vector<std::uint8_t> middle = got;
        middle[8 * 70 + 15] = 7;
        const auto middle_report = compare_exact(middle, expected, layout);
        INFO(middle_report.text);
        CHECK_FALSE(contains(middle_report.text, "seams"));
    }
}

TEST_CASE("a report says the halo was not loaded when the last N-1 outputs of each block are wrong", "[common]") {
    // 1000 outputs in blocks of 256, window 64: outputs 193..255 of each block read past
    // the block's own inputs. The last block (768..999) has them too, at 961..999.
    const long long outputs = 1000, block = 256, halo = 63;
    OutputLayout layout = layout_of(1, outputs, 0);
    layout.name = "output";
    layout.tile_rows = 1;
    layout.tile_cols = block;
    layout.halo = halo;
    std::vector<float> got(outputs, 0.0f);
    for (long long i = 0; i < outputs; ++i) {
        if (i % block >= block - halo) got[i] = 5.0f;
    }
    const auto report = compare_with_tolerance(got, zeros(outputs), layout);
    INFO(report.text);
    CHECK(report.wrong == 3 * 63 + 39);
    CHECK(contains(report.text, "exactly the last N-1 = 63 outputs of each block of 256"));
    CHECK(contains(report.text, "the halo was not loaded"));

    SECTION("some of them only: the halo was loaded in part") {
        got[255] = 0.0f;
        const auto part = compare_with_tolerance(got, zeros(outputs), layout);
        INFO(part.text);
        CHECK(contains(part.text, "Every wrong output is among the last N-1 = 63 outputs of its block"));
    }
    SECTION("one output outside the halo breaks the pattern") {
        got[10] = 5.0f;
        const auto other = compare_with_tolerance(got, zeros(outputs), layout);
        INFO(other.text);
        CHECK_FALSE(contains(other.text, "halo"));
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
    CHECK(contains(error_of(""), "photo.pgm: not a PGM image: the file is empty"));
    CHECK(contains(error_of("P6\n2 2\n255\n"), "colour PPM (P6)"));
    CHECK(contains(error_of("\x89PNG\r\n"), "it is a PNG file"));
    CHECK(contains(error_of("P5\n2 2\n65535\n"), "16-bit"));
    CHECK(contains(error_of("P5\n2 x\n255\n"), "expected the height, found 'x'"));
    CHECK(contains(error_of("P5\n2 2\n"), "expected the maximum value, found the end of the file"));
    CHECK(contains(error_of("P5\n0 2\n255\n"), "0 x 2 pixels"));
    CHECK(contains(error_of("P5\n2 2\n255\nabc"), "truncated PGM: the header says 2 x 2 = 4 pixels, the file holds 3"));
    CHECK(contains(error_of("P2\n2 1\n100\n5 101\n"), "pixel 1 is 101, above the maximum value 100"));
    CHECK(contains(error_of("P2\n2 1\n100\n5\n"), "expected the value of pixel 1 of 2"));
    CHECK(contains(error_of("P5\n99999999999 2\n255\n"), "too large"));
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
