#include "image_demo.h"

#include <cstdio>
#include <filesystem>

namespace tutorial {

GrayImage demo_input_image(int argc, char* argv[], GrayImage (*generated)()) {
    const GrayImage input = argc >= 2 ? read_pgm(argv[1]) : generated();
    std::printf("Input: %s, %d x %d pixels\n", argc >= 2 ? argv[1] : "a generated test image", input.width,
                input.height);
    return input;
}

void write_demo_image(const GrayImage& image, const std::string& stem) {
    const std::filesystem::path folder = std::filesystem::path(stem).parent_path();
    if (!folder.empty()) std::filesystem::create_directories(folder);
    write_file(stem + ".pgm", encode_pgm(image));
    write_file(stem + ".png", encode_png(image));
    std::printf("  wrote %s.png and %s.pgm (%d x %d pixels)\n", stem.c_str(), stem.c_str(), image.width,
                image.height);
}

}  // namespace tutorial
