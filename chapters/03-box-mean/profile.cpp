// Chapter 3's profile: the 5 x 5 box mean (radius 2) of a 256 x 256 8-bit image, from
// global memory and from a shared tile, once each. 256 is a multiple of the 32 x 8
// block, so every block is full; the tile adds a halo of 2 pixels on each side.
#include "box_mean.h"
#include "tutorial_chapter.h"

#include "device_buffer.h"
#include "profile/profile.h"
#include "random.h"

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
    constexpr int width = 256, height = 256, radius = 2;
    const std::vector<std::uint8_t> pixels = tutorial::random_bytes(width * height, 3);
    const tutorial::DeviceBuffer<unsigned char> input(std::vector<unsigned char>(pixels.begin(), pixels.end()));
    tutorial::DeviceBuffer<unsigned char> output(width * height);
    // A sum of 25 pixels and a division per output pixel: 25 additions, not floating point.
    tutorial::profile::Chapter chapter{TUTORIAL_CHAPTER, CHAPTER_NAME, "a 256 x 256 image, radius 2 (5 x 5 boxes)", {}};
    chapter.variants.push_back({"every pixel of the box from global memory", "box_mean_global_kernel<2>", 0,
                                [&] { box_mean_global(input.data(), output.data(), width, height, radius); }});
    chapter.variants.push_back({"the block's tile and halo staged in shared memory", "box_mean_shared_kernel<2>", 0,
                                [&] { box_mean_shared(input.data(), output.data(), width, height, radius); }});
    return tutorial::profile::run(argc, argv, chapter);
}
