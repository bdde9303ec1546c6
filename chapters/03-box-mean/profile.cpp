// Chapter 3's profile: the 5 x 5 box mean (radius 2) of a 1024 x 256 8-bit image, once with
// each step's kernel. 1024 x 256 is a whole number of every step's blocks: 32 x 8 pixels
// (3a, 3b), 512 x 64 (3c) and a strip of 1024 x 64 (3d), so every block is full and 3d's
// block copies whole rows of its strip, as on the benchmark's 8000 x 8000 image.
#include "box_mean.h"
#include "tutorial_chapter.h"

#include "device_buffer.h"
#include "profile/profile.h"
#include "random.h"

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
    constexpr int width = 1024, height = 256, radius = 2;
    const std::vector<std::uint8_t> pixels = tutorial::random_bytes(width * height, 3);
    const tutorial::DeviceBuffer<unsigned char> input(std::vector<unsigned char>(pixels.begin(), pixels.end()));
    tutorial::DeviceBuffer<unsigned char> output(width * height);
    // A sum of 25 pixels and a division per output pixel: 25 additions, not floating point.
    tutorial::profile::Chapter chapter{TUTORIAL_CHAPTER, CHAPTER_NAME, "a 1024 x 256 image, radius 2 (5 x 5 boxes)", {}};
    chapter.variants.push_back({"every pixel of the box from global memory", "box_mean_global_kernel<2>", 0,
                                [&] { box_mean_global(input.data(), output.data(), width, height, radius); }});
    chapter.variants.push_back({"the block's tile and halo staged in shared memory", "box_mean_shared_kernel<2>", 0,
                                [&] { box_mean_shared(input.data(), output.data(), width, height, radius); }});
    // The width is a multiple of 16 and the buffers are aligned: 3c and 3d take their
    // 16-byte paths, as in the benchmark.
    chapter.variants.push_back({STEP("c") ": 16 x 8 pixels a thread, a 512 x 64 tile in shared memory",
                                "box_mean_coarsened_kernel<2, true, 8, 16>", 0,
                                [&] { box_mean_coarsened(input.data(), output.data(), width, height, radius); }});
    chapter.variants.push_back({STEP("d") ": rows streamed through a ring of shared-memory buffers by cp.async",
                                "box_mean_ring_kernel<2, true>", 0,
                                [&] { box_mean_ring(input.data(), output.data(), width, height, radius); }});
    return tutorial::profile::run(argc, argv, chapter);
}
