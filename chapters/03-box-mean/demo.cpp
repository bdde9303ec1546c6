// Chapter 3 demo: blur an image with your box-mean kernels and write the results as
// pictures you can open.
//
//   make chapter3 run                   blurs a generated test image
//   make chapter3 run IMAGE=photo.pgm   blurs your own 8-bit grayscale PGM
//
// It writes the input and the 3x3 (R=1) and 5x5 (R=2) box means to build/ as PGM and PNG
// files. A photo in another format converts with, for example, ImageMagick:
// `convert photo.jpg -colorspace Gray photo.pgm`.
#include "box_mean.h"
#include "tutorial_chapter.h"

#include "device_buffer.h"
#include "image_demo.h"
#include "box_mean_reference.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

// 5x7 letters, one string per row, for the text in the test image.
struct Glyph {
    char letter;
    const char* rows[7];
};
const Glyph kFont[] = {
    {'A', {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}},
    {'B', {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."}},
    {'E', {"#####", "#....", "#....", "####.", "#....", "#....", "#####"}},
    {'M', {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"}},
    {'N', {"#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#", "#...#"}},
    {'O', {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}},
    {'X', {"#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"}},
};

void fill(tutorial::GrayImage& image, int x0, int y0, int x1, int y1, std::uint8_t value) {
    for (int y = std::max(y0, 0); y < std::min(y1, image.height); ++y) {
        for (int x = std::max(x0, 0); x < std::min(x1, image.width); ++x) {
            image.pixels[static_cast<std::size_t>(y) * image.width + x] = value;
        }
    }
}

void draw_text(tutorial::GrayImage& image, const std::string& text, int x0, int y0, int scale, std::uint8_t ink) {
    for (char letter : text) {
        for (const Glyph& glyph : kFont) {
            if (glyph.letter != letter) continue;
            for (int row = 0; row < 7; ++row) {
                for (int col = 0; col < 5; ++col) {
                    if (glyph.rows[row][col] == '#') {
                        fill(image, x0 + col * scale, y0 + row * scale, x0 + (col + 1) * scale,
                             y0 + (row + 1) * scale, ink);
                    }
                }
            }
        }
        x0 += 6 * scale;  // a letter and a column of space; unknown letters are spaces
    }
}

// Something for a blur to act on: a smooth gradient (which a box mean barely changes),
// hard-edged shapes, stripes 1, 2 and 4 pixels wide, a checkerboard, and letters from
// large to one pixel per stroke.
tutorial::GrayImage generated_image() {
    tutorial::GrayImage image{512, 320, {}};
    image.pixels.resize(static_cast<std::size_t>(image.width) * image.height);
    for (int y = 0; y < image.height; ++y) {
        for (int x = 0; x < image.width; ++x) {
            image.pixels[static_cast<std::size_t>(y) * image.width + x] = static_cast<std::uint8_t>(40 + x * 160 / 512);
        }
    }
    for (int y = 20; y < 140; ++y) {  // a white disc
        for (int x = 20; x < 140; ++x) {
            if (std::hypot(x - 80.0, y - 80.0) < 55.0) image.pixels[y * image.width + x] = 250;
        }
    }
    fill(image, 170, 30, 260, 130, 10);  // a black square
    for (int i = 0; i < 120; ++i) {      // a thin diagonal line
        fill(image, 280 + i, 20 + i, 282 + i, 21 + i, 235);
    }
    int x = 420;
    for (int width : {1, 2, 4}) {  // stripes
        for (int i = 0; i < 6; ++i, x += 2 * width) fill(image, x, 20, x + width, 140, 245);
        x += 8;
    }
    for (int y = 160; y < 220; ++y) {  // a one-pixel checkerboard
        for (int cx = 420; cx < 492; ++cx) image.pixels[y * image.width + cx] = ((cx + y) % 2) ? 235 : 20;
    }
    fill(image, 16, 160, 400, 304, 225);  // a light card with text in three sizes
    draw_text(image, "BOX MEAN", 28, 172, 6, 15);
    draw_text(image, "BOX MEAN", 28, 230, 3, 15);
    draw_text(image, "BOX MEAN", 28, 266, 2, 15);
    draw_text(image, "BOX MEAN", 200, 266, 1, 15);
    return image;
}

// Runs one box-mean function on the GPU copy of the input; true if it equals the CPU.
bool run_kernel(void (*box_mean)(const unsigned char*, unsigned char*, int, int, int), const char* name,
                const tutorial::DeviceBuffer<std::uint8_t>& input, tutorial::DeviceBuffer<std::uint8_t>& output,
                const tutorial::GrayImage& image, int radius, const std::vector<std::uint8_t>& expected,
                std::vector<std::uint8_t>& result) {
    output.poison(0);
    box_mean(input.data(), output.data(), image.width, image.height, radius);
    result = output.download();
    long long wrong = 0;
    for (std::size_t i = 0; i < result.size(); ++i) wrong += result[i] != expected[i];
    std::printf("  %-16s R=%d (%dx%d box): %s\n", name, radius, 2 * radius + 1, 2 * radius + 1,
                wrong == 0 ? "equals the CPU reference"
                           : ("WRONG at " + std::to_string(wrong) + " of " + std::to_string(result.size()) +
                              " pixels: run `make " CHAPTER_NAME " test`")
                                 .c_str());
    return wrong == 0;
}

}  // namespace

int main(int argc, char* argv[]) {
    return tutorial::run_image_demo(argc, argv, CHAPTER_NAME, generated_image, [](const tutorial::GrayImage& input) {
        const tutorial::DeviceBuffer<std::uint8_t> device_input(input.pixels);
        tutorial::DeviceBuffer<std::uint8_t> device_output(input.pixels.size());
        std::vector<tutorial::GrayImage> results;
        bool all_right = true;
        for (int radius : {1, 2}) {
            const std::vector<std::uint8_t> expected =
                tutorial::box_mean_reference(input.pixels, input.width, input.height, radius);
            tutorial::GrayImage blurred{input.width, input.height, {}};
            all_right &= run_kernel(box_mean_global, "box_mean_global", device_input, device_output, input, radius,
                                    expected, blurred.pixels);
            // The pictures show the shared-memory kernel's result, right or wrong: a wrong
            // one is worth looking at.
            all_right &= run_kernel(box_mean_shared, "box_mean_shared", device_input, device_output, input, radius,
                                    expected, blurred.pixels);
            results.push_back(blurred);
        }

        tutorial::write_demo_image(input, "build/" CHAPTER_NAME "-input");
        tutorial::write_demo_image(results[0], "build/" CHAPTER_NAME "-box-mean-r1");
        tutorial::write_demo_image(results[1], "build/" CHAPTER_NAME "-box-mean-r2");
        std::printf("Open the PNG files in an image viewer or a browser and compare the edges, the stripes and "
                    "the small letters.\n");
        return all_right;
    });
}
