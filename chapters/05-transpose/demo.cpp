// Chapter 5 demo: transpose an image with your three transpose kernels and write the
// result as a picture you can open.
//
//   make chapter5 run                   transposes a generated test image
//   make chapter5 run IMAGE=photo.pgm   transposes your own 8-bit grayscale PGM
//
// The pixels go through the kernels as floats (the chapter's API), and come back as
// the same bytes, swapped across the diagonal: rows become columns. It writes the input
// and transpose_padded's result to build/ as PGM and PNG files.
#include "transpose.h"
#include "tutorial_chapter.h"

#include "device_buffer.h"
#include "image_demo.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {

// Something whose orientation shows: a gradient dark at the left and light at the
// right, a bar along the top edge, and a large "F" (which no flip or rotation maps to
// itself); the transpose turns the gradient vertical and lays the F on its back. The
// sides are primes, so the tiles at the right and bottom edges are partial.
tutorial::GrayImage generated_image() {
    tutorial::GrayImage image{421, 251, {}};
    image.pixels.resize(static_cast<std::size_t>(image.width) * image.height);
    auto set = [&](int x0, int y0, int x1, int y1, std::uint8_t value) {
        for (int y = y0; y < y1 && y < image.height; ++y) {
            for (int x = x0; x < x1 && x < image.width; ++x) {
                image.pixels[static_cast<std::size_t>(y) * image.width + x] = value;
            }
        }
    };
    for (int y = 0; y < image.height; ++y) {
        for (int x = 0; x < image.width; ++x) {
            image.pixels[static_cast<std::size_t>(y) * image.width + x] =
                static_cast<std::uint8_t>(30 + x * 150 / image.width);
        }
    }
    set(0, 0, image.width, 12, 250);     // the top edge
    set(60, 40, 90, 220, 10);            // the F's stem
    set(60, 40, 200, 70, 10);            // its top arm
    set(60, 115, 160, 140, 10);          // its middle arm
    set(260, 60, 390, 190, 240);         // a light square, off the diagonal
    return image;
}

}  // namespace

int main(int argc, char* argv[]) {
    return tutorial::run_image_demo(argc, argv, CHAPTER_NAME, generated_image, [](const tutorial::GrayImage& input) {
        // The image is a matrix of height rows and width columns.
        const int rows = input.height, cols = input.width;
        const std::vector<float> pixels(input.pixels.begin(), input.pixels.end());
        std::vector<float> expected(pixels.size());
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < cols; ++c) {
                expected[static_cast<std::size_t>(c) * rows + r] = pixels[static_cast<std::size_t>(r) * cols + c];
            }
        }

        const tutorial::DeviceBuffer<float> device_input(pixels);
        tutorial::DeviceBuffer<float> device_output(pixels.size());
        const std::pair<const char*, void (*)(const float*, float*, int, int)> variants[] = {
            {"transpose_naive", transpose_naive}, {"transpose_shared", transpose_shared},
            {"transpose_padded", transpose_padded}};
        bool all_right = true;
        std::vector<float> result;
        for (const auto& [name, transpose] : variants) {
            device_output.poison();  // NaN: a pixel never written cannot match
            transpose(device_input.data(), device_output.data(), rows, cols);
            result = device_output.download();
            long long wrong = 0;
            for (std::size_t i = 0; i < result.size(); ++i) wrong += result[i] != expected[i];
            std::printf("  %-17s %s\n", name,
                        wrong == 0 ? "equals the CPU's transpose"
                                   : ("WRONG at " + std::to_string(wrong) + " of " + std::to_string(result.size()) +
                                      " pixels: run `make " CHAPTER_NAME " test`")
                                         .c_str());
            all_right &= wrong == 0;
        }

        // The picture shows transpose_padded's result, right or wrong: a wrong one is
        // worth looking at. A pixel never written (NaN) shows as mid-grey.
        tutorial::GrayImage transposed{rows, cols, std::vector<std::uint8_t>(result.size())};
        for (std::size_t i = 0; i < result.size(); ++i) {
            const float v = result[i];
            transposed.pixels[i] = v >= 0.0f && v <= 255.0f ? static_cast<std::uint8_t>(v) : 128;
        }
        tutorial::write_demo_image(input, "build/" CHAPTER_NAME "-input");
        tutorial::write_demo_image(transposed, "build/" CHAPTER_NAME "-transposed");
        std::printf("Open the PNG files: the transposed image is the input mirrored across its main diagonal "
                    "(top left to bottom right).\n");
        return all_right;
    });
}
