// Chapter 3 tests: the box mean, from global memory and from a shared tile with a halo.
// Run them with `make chapter3 test`.
#include "box_mean.h"
#include "tutorial_chapter.h"

#include "catch.h"
#include "compare.h"
#include "device_buffer.h"
#include "expect.h"
#include "random.h"
#include "box_mean_reference.h"
#include "sweep.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using BoxMean = std::function<void(const unsigned char*, unsigned char*, int, int, int)>;

struct ImageCase {
    int width;
    int height;
    int radius;
};

// Width and height by name: the report calls the output's height its rows and its
// width its columns, and "101 x 53" next to "53 rows x 101 columns" reads as two images.
std::ostream& operator<<(std::ostream& out, const ImageCase& c) {
    return out << "width " << c.width << ", height " << c.height << ", radius " << c.radius;
}

// The images every box-mean kernel must get right at radius R.
std::vector<ImageCase> image_cases(int R) {
    std::vector<int> small_sides{1, 2, R, 2 * R + 1};  // 2R+1: the box is as large as the image
    small_sides.erase(std::remove(small_sides.begin(), small_sides.end(), 0), small_sides.end());
    std::sort(small_sides.begin(), small_sides.end());
    small_sides.erase(std::unique(small_sides.begin(), small_sides.end()), small_sides.end());

    std::vector<ImageCase> cases;
    for (int side : small_sides) {
        cases.push_back({side, side, R});
    }
    if (R > 0) {  // at R = 0 these are 1 x 1 again
        cases.push_back({1, 2 * R + 1, R});
        cases.push_back({2 * R + 1, 1, R});
    }
    // One block less, exactly one block, and one pixel more, in each direction.
    for (int width : {kBoxBlockX - 1, kBoxBlockX, kBoxBlockX + 1}) {
        for (int height : {kBoxBlockY - 1, kBoxBlockY, kBoxBlockY + 1}) {
            cases.push_back({width, height, R});
        }
    }
    cases.push_back({13, 7, R});     // odd primes below the block
    cases.push_back({101, 53, R});   // odd primes spanning several blocks
    cases.push_back({8000, 3, R});   // thin strips: many blocks one way, a partial one the other
    cases.push_back({3, 8000, R});
    // A few hundred pixels square, where the seams between blocks are away from the
    // border. The radii the lesson measures get it; R = 0 and the largest R keep the
    // suite fast under the CPU backend.
    if (R == 1 || R == 2) {
        cases.push_back({251, 251, R});
    }
    return cases;
}

std::vector<ImageCase> all_image_cases() {
    std::vector<ImageCase> cases;
    for (int R : {0, 1, 2, kMaxBoxRadius}) {
        const std::vector<ImageCase> for_radius = image_cases(R);
        cases.insert(cases.end(), for_radius.begin(), for_radius.end());
    }
    return cases;
}

// When the output is the right box mean of another place, one fixed step away, at every
// pixel where that place lies inside the image (a box that starts at the wrong column or
// row, a tile whose origin misses the halo), a sentence that says which step; empty when no
// step of up to 2R + 1 pixels each way explains it. Random pixels make a chance match of
// the 8 or more pixels it asks for vanishingly rare.
std::string shifted_box_finding(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& expected,
                                const ImageCase& c) {
    const int reach = 2 * c.radius + 1;
    const long long pixels = static_cast<long long>(c.width) * c.height;
    for (int dy = -reach; dy <= reach; ++dy) {
        for (int dx = -reach; dx <= reach; ++dx) {
            if (dx == 0 && dy == 0) continue;
            long long compared = 0;
            bool matches = true, explains_a_wrong_pixel = false;
            for (int y = std::max(0, -dy); y < std::min(c.height, c.height - dy) && matches; ++y) {
                for (int x = std::max(0, -dx); x < std::min(c.width, c.width - dx); ++x) {
                    const std::size_t own = static_cast<std::size_t>(y) * c.width + x;
                    const std::size_t there = static_cast<std::size_t>(y + dy) * c.width + (x + dx);
                    if (got[own] != expected[there]) {
                        matches = false;
                        break;
                    }
                    ++compared;
                    explains_a_wrong_pixel |= got[own] != expected[own];
                }
            }
            if (!matches || !explains_a_wrong_pixel || compared < 8 || 2 * compared < pixels) continue;
            const auto step = [](int d, const char* forward, const char* back) {
                return std::to_string(std::abs(d)) + (std::abs(d) == 1 ? " pixel " : " pixels ") + (d > 0 ? forward : back);
            };
            std::string where = dx != 0 ? step(dx, "right", "left") : "";
            if (dy != 0) where += (where.empty() ? "" : " and ") + step(dy, "down", "up");
            const auto offset = [](const char* name, int d) {
                return std::string(name) + (d == 0 ? "" : (d > 0 ? " + " : " - ") + std::to_string(std::abs(d)));
            };
            std::ostringstream text;
            text << "Each output pixel (x, y) holds the box mean that belongs " << where << " of it, at ("
                 << offset("x", dx) << ", " << offset("y", dy)
                 << "), wherever that place is inside the image (" << compared << " of " << pixels
                 << " pixels): the box is read from the wrong place. Pixel (x, y)'s box starts R columns left of "
                    "and R rows above it; in a tile with a halo, that is tile[threadIdx.y][threadIdx.x] when "
                    "tile[0][0] is the pixel R left of and R above the block's first output pixel.";
            return text.str();
        }
    }
    return "";
}

// Runs `box_mean` on `input` twice, with the output poisoned first to 0x00 and then to
// 0xFF: any byte is a valid pixel, so a pixel no thread writes could match by chance
// under one poison, but not under both. Returns the first failing comparison, if any.
tutorial::ComparisonReport run_box_mean(const BoxMean& box_mean, const ImageCase& c,
                                        const std::vector<std::uint8_t>& input, int tile_rows = kBoxBlockY,
                                        int tile_cols = kBoxBlockX) {
    const std::vector<std::uint8_t> expected = tutorial::box_mean_reference(input, c.width, c.height, c.radius);
    tutorial::DeviceBuffer<std::uint8_t> device_input(input), device_output(input.size());

    tutorial::OutputLayout layout;
    layout.name = "output";
    layout.rows = c.height;
    layout.cols = c.width;
    layout.tile_rows = tile_rows;
    layout.tile_cols = tile_cols;
    layout.border = c.radius;
    layout.seed = tutorial::run_seed();
    tutorial::ComparisonReport report;
    for (std::uint8_t poison : {0x00, 0xFF}) {
        device_output.poison(poison);
        box_mean(device_input.data(), device_output.data(), c.width, c.height, c.radius);
        layout.poison = poison;
        const std::vector<std::uint8_t> got = device_output.download();
        report = tutorial::compare_exact(got, expected, layout);
        if (!report.ok()) {
            const std::string shifted = shifted_box_finding(got, expected, c);
            if (!shifted.empty()) {
                report.cause = shifted;
                report.text += tutorial::wrap_report_text(shifted);
            }
            break;
        }
    }
    return report;
}

tutorial::ComparisonReport run_random_case(const BoxMean& box_mean, const ImageCase& c, int tile_rows = kBoxBlockY,
                                           int tile_cols = kBoxBlockX) {
    const std::uint64_t seed = tutorial::derive_seed(tutorial::run_seed(), {c.width, c.height, c.radius});
    return run_box_mean(box_mean, c, tutorial::random_bytes(static_cast<std::size_t>(c.width) * c.height, seed),
                        tile_rows, tile_cols);
}

// Every image case in one report: the first failing one in full, a line for each other,
// and what the failing images share (a width that is no multiple of 32, say).
// @p stages_in_shared: the kernel loads a tile with its halo into shared memory.
tutorial::ShapeSweep sweep_image_cases(const std::string& name, const BoxMean& box_mean, bool stages_in_shared) {
    tutorial::ShapeSweep sweep(name, tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    for (const ImageCase& c : all_image_cases()) {
        std::ostringstream label;
        label << c;
        tutorial::OutputOwnership ownership;
        ownership.output_name = "output";
        ownership.rows = c.height;
        ownership.cols = c.width;
        // One thread per pixel: x = blockIdx.x * 32 + threadIdx.x, y likewise with 8.
        ownership.element_of = [](tutorial::Index3 block, tutorial::Index3 thread, long long& row, long long& col) {
            row = block.y * kBoxBlockY + thread.y;
            col = block.x * kBoxBlockX + thread.x;
        };
        ownership.stages_in_shared = stages_in_shared;
        ownership.reads_neighbours = true;  // a stencil: a box, a window
        sweep.run(label.str(),
                  {{"width", c.width, kBoxBlockX, "", "block"},
                   {"height", c.height, kBoxBlockY, "", "block"},
                   {"radius", c.radius, 0, "", ""}},
                  [&] { return run_random_case(box_mean, c); }, ownership);
    }
    return sweep;
}

void check_rejects_bad_arguments(const BoxMean& box_mean, const std::string& name) {
    // Validation must reject the call before any kernel could touch these addresses.
    unsigned char dummy = 0;
    unsigned char* p = &dummy;
    SECTION("width < 1") {
        REQUIRE_THROWS_WITH(box_mean(p, p, 0, 4, 1), name + ": argument width must be at least 1, got 0");
    }
    SECTION("height < 1") {
        REQUIRE_THROWS_WITH(box_mean(p, p, 4, -2, 1), name + ": argument height must be at least 1, got -2");
    }
    SECTION("more pixels than an int can index") {
        REQUIRE_THROWS_WITH(box_mean(p, p, 65536, 32768, 1),
                            name + ": the image is 65536 x 32768 pixels, more than the 2147483647 an int can index "
                                   "(arguments width and height)");
    }
    SECTION("radius < 0") {
        REQUIRE_THROWS_WITH(box_mean(p, p, 4, 4, -1), name + ": argument radius must be between 0 and " +
                                                          std::to_string(kMaxBoxRadius) + ", got -1");
    }
    SECTION("radius above the largest supported") {
        REQUIRE_THROWS_WITH(box_mean(p, p, 4, 4, kMaxBoxRadius + 1),
                            name + ": argument radius must be between 0 and " + std::to_string(kMaxBoxRadius) +
                                ", got " + std::to_string(kMaxBoxRadius + 1));
    }
    SECTION("null input") {
        REQUIRE_THROWS_WITH(box_mean(nullptr, p, 4, 4, 1), name + ": argument input is a null pointer");
    }
    SECTION("null output") {
        REQUIRE_THROWS_WITH(box_mean(p, nullptr, 4, 4, 1), name + ": argument output is a null pointer");
    }
    SECTION("the exception type is std::invalid_argument") {
        REQUIRE_THROWS_AS(box_mean(p, p, 4, 4, kMaxBoxRadius + 1), std::invalid_argument);
    }
}

}  // namespace

TEST_CASE("box_mean_launch_config covers the image with 32x8 blocks, one thread per pixel", CHAPTER_TAG "[graded]") {
    REQUIRE(kBoxBlockX == 32);
    REQUIRE(kBoxBlockY == 8);
    for (const ImageCase& c : image_cases(1)) {
        const tutorial::LaunchConfig got = box_mean_launch_config(c.width, c.height);
        // Exactly ceil(width / 32) blocks along x: fewer leaves columns uncomputed, more
        // launches blocks with nothing to do.
        const dim3 grid(tutorial::ceil_div(c.width, kBoxBlockX), tutorial::ceil_div(c.height, kBoxBlockY));
        REQUIRE_LAUNCH_CONFIG(got, grid, dim3(kBoxBlockX, kBoxBlockY), "For a " << c.width << " x " << c.height << " image",
                              "x covers the " << c.width << " columns: ceil(" << c.width << " / " << kBoxBlockX
                                              << ") = " << grid.x << "; y covers the " << c.height << " rows");
    }
}

TEST_CASE("box_mean_global equals the CPU reference at every pixel, corners and edges included", CHAPTER_TAG "[gpu][graded]") {
    REQUIRE_SWEEP(sweep_image_cases("box_mean_global", box_mean_global, false));
}

TEST_CASE("box_mean_shared equals the CPU reference at every pixel, corners and edges included", CHAPTER_TAG "[gpu][graded]") {
    REQUIRE_SWEEP(sweep_image_cases("box_mean_shared", box_mean_shared, true));
}

TEST_CASE("an all-255 image stays all 255: the box sum does not overflow", CHAPTER_TAG "[gpu][graded]") {
    // 289 * 255 = 73695 at radius 8: more than an unsigned char or a short holds.
    const std::vector<ImageCase> cases{{kBoxBlockX + 5, kBoxBlockY + 3, kMaxBoxRadius}, {37, 23, 2}};
    const auto sweep_white = [&](const std::string& name, const BoxMean& box_mean) {
        tutorial::SweepOptions options = tutorial::default_sweep_options(TUTORIAL_CHAPTER);
        options.case_prefix = name + " / ";  // both kernels' cases share the test case
        tutorial::ShapeSweep sweep(name + " on an all-255 image", options);
        for (const ImageCase& c : cases) {
            std::ostringstream label;
            label << c;
            const std::vector<std::uint8_t> white(static_cast<std::size_t>(c.width) * c.height, 255);
            sweep.run(label.str(),
                      {{"width", c.width, kBoxBlockX, "", "block"},
                       {"height", c.height, kBoxBlockY, "", "block"},
                       {"radius", c.radius, 0, "", ""}},
                      [&] { return run_box_mean(box_mean, c, white); });
        }
        return sweep;
    };
    // One report for both kernels: the first failing one in full, the other in a line.
    const std::vector<tutorial::ShapeSweep> sweeps{sweep_white("box_mean_global", box_mean_global),
                                                   sweep_white("box_mean_shared", box_mean_shared)};
    REQUIRE_SWEEPS(sweeps);
}

TEST_CASE("box_mean_global rejects bad sizes, radii and null pointers, naming the argument", CHAPTER_TAG) {
    check_rejects_bad_arguments(box_mean_global, "box_mean_global");
}

TEST_CASE("box_mean_shared rejects bad sizes, radii and null pointers, naming the argument", CHAPTER_TAG) {
    check_rejects_bad_arguments(box_mean_shared, "box_mean_shared");
}

TEST_CASE("a refused launch is a CudaError naming the kernel", CHAPTER_TAG "[gpu]") {
    // 65535 is the largest grid.y a GPU accepts; one row of blocks more is too many.
    const int width = 1, height = 65535 * kBoxBlockY + 1;
    tutorial::DeviceBuffer<std::uint8_t> input(height), output(height);
    // One after the other, not in sections: while the launch configuration is a TODO both
    // fail alike, and one report says it.
    tutorial::check_launch_refused([&] { box_mean_global(input.data(), output.data(), width, height, 1); },
                                   "box_mean_global_kernel", "box_mean.cu");
    tutorial::check_launch_refused([&] { box_mean_shared(input.data(), output.data(), width, height, 1); },
                                   "box_mean_shared_kernel", "box_mean.cu");
}

// The box mean by its definition: sum the whole clamped box. The reference sums rows
// first; both must agree exactly.
static std::vector<std::uint8_t> box_mean_by_definition(const std::vector<std::uint8_t>& image, int width, int height,
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

// The CPU reference this chapter is checked against must itself be right.
TEST_CASE("box_mean_reference clamps to the edge and rounds to nearest", CHAPTER_TAG "[reference]") {
    // 2 x 2 image [0 9; 18 27], radius 1. The box around (0, 0) clamps to rows 0,0,1 and
    // columns 0,0,1: 0+0+9 + 0+0+9 + 18+18+27 = 81, mean 9.
    const std::vector<std::uint8_t> image{0, 9, 18, 27};
    CHECK(tutorial::box_mean_reference(image, 2, 2, 1) == std::vector<std::uint8_t>{9, 12, 15, 18});
    // Radius 0 is a copy.
    CHECK(tutorial::box_mean_reference(image, 2, 2, 0) == image);
    // Rounding: a 3x3 box summing 4 has mean 0.44, rounded to 0; summing 5, 0.56 rounded to 1.
    CHECK(tutorial::box_mean_reference({0, 0, 0, 0, 4, 0, 0, 0, 0}, 3, 3, 1)[4] == 0);
    CHECK(tutorial::box_mean_reference({0, 0, 0, 0, 5, 0, 0, 0, 0}, 3, 3, 1)[4] == 1);
    // All 255 at the largest box: 289 * 255 fits an int, and the mean is 255.
    const std::vector<std::uint8_t> white(7 * 5, 255);
    CHECK(tutorial::box_mean_reference(white, 7, 5, 8) == white);
    REQUIRE_THROWS_AS(tutorial::box_mean_reference(image, 3, 2, 1), std::invalid_argument);
}


TEST_CASE("a box mean read from a place a fixed step away is named with its step, and nothing else is",
          CHAPTER_TAG "[reference]") {
    const ImageCase c{40, 20, 2};
    const std::vector<std::uint8_t> image = tutorial::random_bytes(40 * 20, 7);
    const std::vector<std::uint8_t> expected = tutorial::box_mean_reference(image, c.width, c.height, c.radius);
    // Every pixel holds the mean 2 columns left and 1 row down of it, where there is one.
    std::vector<std::uint8_t> moved = expected;
    for (int y = 0; y + 1 < c.height; ++y) {
        for (int x = 2; x < c.width; ++x) moved[static_cast<std::size_t>(y) * c.width + x] = expected[(y + 1) * c.width + x - 2];
    }
    const std::string finding = shifted_box_finding(moved, expected, c);
    INFO(finding);
    CHECK(finding.find("belongs 2 pixels left and 1 pixel down of it, at (x - 2, y + 1)") != std::string::npos);
    // A few wrong pixels, and one pixel right: no step explains them.
    std::vector<std::uint8_t> nudged = expected;
    for (std::size_t i = 0; i < nudged.size(); i += 37) nudged[i] = static_cast<std::uint8_t>(nudged[i] + 1);
    CHECK(shifted_box_finding(nudged, expected, c).empty());
}

TEST_CASE("box_mean_reference equals the sum over the whole box, for every radius", CHAPTER_TAG "[reference]") {
    const int width = 23, height = 11;
    const auto image = tutorial::random_bytes(width * height, 41);
    for (int radius : {0, 1, 2, 5, 8, 12}) {
        INFO("radius " << radius);
        CHECK(tutorial::box_mean_reference(image, width, height, radius) ==
              box_mean_by_definition(image, width, height, radius));
    }
}

// ---- 3c (going further): thread coarsening. Tagged [extra]: the chapter is done without it.

namespace {

// Chapter 3's images, and the edges of a coarsened block's 128 x 64 output tile: one
// pixel short of it, exactly it and one more, with widths that are and are not
// multiples of the 4-pixel word.
std::vector<ImageCase> coarsened_image_cases() {
    std::vector<ImageCase> cases = all_image_cases();
    const int tile_w = kBoxBlockX * kCoarsenX, tile_h = kBoxBlockY * kCoarsenRows;
    for (int R : {1, 2, kMaxBoxRadius}) {
        for (int width : {tile_w - 1, tile_w, tile_w + 1, tile_w + 2}) {
            for (int height : {tile_h - 1, tile_h, tile_h + 1}) {
                cases.push_back({width, height, R});
            }
        }
        cases.push_back({2 * tile_w + 4, 3 * tile_h + 5, R});  // several tiles, rows word-aligned
    }
    return cases;
}

}  // namespace

TEST_CASE(STEP("c") ": box_mean_coarsened equals the CPU reference at every pixel, corners and edges included",
          CHAPTER_TAG "[extra][gpu]") {
    // One report for every image, as for 3a and 3b: the first failing one in full.
    const int tile_w = kBoxBlockX * kCoarsenX, tile_h = kBoxBlockY * kCoarsenRows;
    tutorial::ShapeSweep sweep("box_mean_coarsened", tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    for (const ImageCase& c : coarsened_image_cases()) {
        std::ostringstream label;
        label << c;
        sweep.run(label.str(),
                  {{"width", c.width, tile_w, "", "tile"}, {"height", c.height, tile_h, "", "tile"}, {"radius", c.radius, 0, "", ""}},
                  [&] { return run_random_case(box_mean_coarsened, c, tile_h, tile_w); });
    }
    REQUIRE_SWEEP(sweep);
}

namespace {

// Runs `box_mean` on an image that starts 1 byte into its buffer, and so does its output:
// rows a multiple of 16 pixels wide, but 16-byte loads, copies and stores would be
// misaligned, so the kernel must not use them.
tutorial::ShapeSweep sweep_misaligned_image(const std::string& name, const BoxMean& box_mean, int tile_rows,
                                            int tile_cols) {
    const ImageCase c{tile_cols + 16, 37, 2};
    const std::size_t pixels = static_cast<std::size_t>(c.width) * c.height;
    const std::vector<std::uint8_t> image =
        tutorial::random_bytes(pixels, tutorial::derive_seed(tutorial::run_seed(), {c.width, c.height, 1}));
    std::vector<std::uint8_t> shifted(1, 0);
    shifted.insert(shifted.end(), image.begin(), image.end());
    tutorial::DeviceBuffer<std::uint8_t> input(shifted), output(pixels + 1);
    output.poison(0xFF);
    box_mean(input.data() + 1, output.data() + 1, c.width, c.height, c.radius);
    const std::vector<std::uint8_t> all = output.download();
    tutorial::OutputLayout layout;
    layout.name = "output";
    layout.rows = c.height;
    layout.cols = c.width;
    layout.tile_rows = tile_rows;
    layout.tile_cols = tile_cols;
    layout.border = c.radius;
    layout.poison = 0xFF;
    layout.seed = tutorial::run_seed();
    // A sweep of one shape: its report is as short as the others' when nothing was written.
    tutorial::ShapeSweep sweep(name + " on images starting 1 byte into their buffers",
                               tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    std::ostringstream label;
    label << c;
    sweep.run(label.str(), {}, [&] {
        return tutorial::compare_exact(std::vector<std::uint8_t>(all.begin() + 1, all.end()),
                                       tutorial::box_mean_reference(image, c.width, c.height, c.radius), layout);
    });
    return sweep;
}

}  // namespace

TEST_CASE(STEP("c") ": box_mean_coarsened rejects bad sizes, radii and null pointers, naming the argument", CHAPTER_TAG "[extra]") {
    check_rejects_bad_arguments(box_mean_coarsened, "box_mean_coarsened");
}

// ---- 3d (going further): rows streamed through a ring of shared-memory buffers. Tagged
// [extra], like 3c.

namespace {

// Chapter 3's images, and the edges of a ring block's 1024 x 64 output tile (a strip
// kRingStripWidth wide, kRingRows high): one pixel short of it, exactly it and one more,
// with widths that are and are not multiples of the 16-byte chunk. A segment shorter than
// the ring (the images 1 to 9 rows high) leaves ring rows never filled.
std::vector<ImageCase> ring_image_cases() {
    std::vector<ImageCase> cases = all_image_cases();
    const int tile_w = kRingStripWidth, tile_h = kRingRows;
    for (int R : {1, 2, kMaxBoxRadius}) {
        for (int width : {tile_w - 1, tile_w, tile_w + 1, tile_w + 16}) {
            for (int height : {tile_h - 1, tile_h, tile_h + 1}) {
                cases.push_back({width, height, R});
            }
        }
        cases.push_back({2 * tile_w + 16, 3 * tile_h + 5, R});  // several strips and segments, rows aligned
    }
    return cases;
}

}  // namespace

TEST_CASE(STEP("d") ": box_mean_ring_launch_config gives one 64-thread block per strip and segment", CHAPTER_TAG "[extra]") {
    REQUIRE(kRingThreads == 64);
    for (const ImageCase& c : ring_image_cases()) {
        const tutorial::LaunchConfig got = box_mean_ring_launch_config(c.width, c.height);
        const int strips = tutorial::ceil_div(c.width, kRingStripWidth), segments = tutorial::ceil_div(c.height, kRingRows);
        REQUIRE_LAUNCH_CONFIG(got, dim3(strips * segments), dim3(kRingThreads),
                              "For a " << c.width << " x " << c.height << " image",
                              "one block for each of the " << strips << " strips of " << kRingStripWidth
                                                           << " columns times each of the " << segments
                                                           << " segments of " << kRingRows << " rows");
    }
}

TEST_CASE(STEP("d") ": box_mean_ring equals the CPU reference at every pixel, corners and edges included",
          CHAPTER_TAG "[extra][gpu]") {
    // One report for every image, as for 3a to 3c: the first failing one in full.
    const int tile_w = kRingStripWidth, tile_h = kRingRows;
    tutorial::ShapeSweep sweep("box_mean_ring", tutorial::default_sweep_options(TUTORIAL_CHAPTER));
    for (const ImageCase& c : ring_image_cases()) {
        std::ostringstream label;
        label << c;
        sweep.run(label.str(),
                  {{"width", c.width, tile_w, "", "strip"}, {"height", c.height, tile_h, "", "segment"}, {"radius", c.radius, 0, "", ""}},
                  [&] { return run_random_case(box_mean_ring, c, tile_h, tile_w); });
    }
    REQUIRE_SWEEP(sweep);
}

// 3c's and 3d's checks on misaligned and on all-255 images: one test case, one report for
// both kernels and both kinds of image, the first failing one in full.
TEST_CASE(STEP("c") " and " STEP("d") ": box_mean_coarsened and box_mean_ring are right on images that do not start on a 16-byte boundary, "
          "and keep an all-255 image all 255",
          CHAPTER_TAG "[extra][gpu]") {
    const auto sweep_white = [](const std::string& name, const BoxMean& box_mean, int tile_rows, int tile_cols) {
        tutorial::SweepOptions options = tutorial::default_sweep_options(TUTORIAL_CHAPTER);
        options.case_prefix = name + " / ";  // the kernels' cases share the test case
        tutorial::ShapeSweep sweep(name + " on all-255 images", options);
        for (const ImageCase& c : {ImageCase{tile_cols + 5, tile_rows + 3, kMaxBoxRadius}, ImageCase{37, 23, 2}}) {
            std::ostringstream label;
            label << c;
            const std::vector<std::uint8_t> white(static_cast<std::size_t>(c.width) * c.height, 255);
            sweep.run(label.str(), {{"width", c.width, 0, "", ""}, {"height", c.height, 0, "", ""}},
                      [&] { return run_box_mean(box_mean, c, white, tile_rows, tile_cols); });
        }
        return sweep;
    };
    const int coarsened_rows = kBoxBlockY * kCoarsenRows, coarsened_cols = kBoxBlockX * kCoarsenX;
    const std::vector<tutorial::ShapeSweep> sweeps{
        sweep_misaligned_image("box_mean_coarsened", box_mean_coarsened, coarsened_rows, coarsened_cols),
        sweep_misaligned_image("box_mean_ring", box_mean_ring, kRingRows, kRingStripWidth),
        sweep_white("box_mean_coarsened", box_mean_coarsened, coarsened_rows, coarsened_cols),
        sweep_white("box_mean_ring", box_mean_ring, kRingRows, kRingStripWidth)};
    REQUIRE_SWEEPS(sweeps);
}

TEST_CASE(STEP("d") ": box_mean_ring rejects bad sizes, radii and null pointers, naming the argument", CHAPTER_TAG "[extra]") {
    check_rejects_bad_arguments(box_mean_ring, "box_mean_ring");
}
