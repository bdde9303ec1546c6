#include "image_demo.h"

#include "demo.h"

#include <cstdio>
#include <filesystem>

namespace tutorial {

GrayImage demo_input_image(int argc, char* argv[], GrayImage (*generated)()) {
    const GrayImage input = argc >= 2 ? read_pgm(argv[1]) : generated();
    std::printf("Input: %s, %d x %d pixels\n", argc >= 2 ? argv[1] : "a generated test image", input.width,
                input.height);
    return input;
}

int run_image_demo(int argc, char* argv[], const char* chapter, GrayImage (*generated)(),
                   const std::function<bool(const GrayImage& input)>& demo) {
    if (argc > 2) {
        std::fprintf(stderr, "usage: %s [image.pgm]   (make %s run IMAGE=image.pgm)\n", argv[0], chapter);
        return 2;
    }
    return run_demo([&] { return demo(demo_input_image(argc, argv, generated)); });
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
