// Chapter 5's profile: the transpose of a 256 x 256 float matrix, naive, through a 32 x 32
// shared tile and through the tile padded to 32 x 33, once each. 256 is a multiple of the
// tile, so every block is full. The shared tile's column reads are the 32-way bank
// conflict of the lesson; the padded tile's are conflict-free.
#include "transpose.h"
#include "tutorial_chapter.h"

#include "device_buffer.h"
#include "profile/profile.h"
#include "random.h"

int main(int argc, char** argv) {
    constexpr int rows = 256, cols = 256;
    const tutorial::DeviceBuffer<float> input(tutorial::random_floats(rows * cols, 5));
    tutorial::DeviceBuffer<float> output(rows * cols);
    // A transpose computes nothing: no floating-point operations.
    tutorial::profile::Chapter chapter{TUTORIAL_CHAPTER, CHAPTER_NAME, "a 256 x 256 float matrix", {}};
    chapter.variants.push_back({"straight in global memory: coalesced reads, strided writes", "transpose_naive_kernel",
                                0, [&] { transpose_naive(input.data(), output.data(), rows, cols); }});
    chapter.variants.push_back({"through a 32 x 32 shared tile: column reads in one bank", "transpose_shared_kernel",
                                0, [&] { transpose_shared(input.data(), output.data(), rows, cols); }});
    chapter.variants.push_back({"through a 32 x 33 padded tile: column reads in 32 banks", "transpose_padded_kernel",
                                0, [&] { transpose_padded(input.data(), output.data(), rows, cols); }});
    return tutorial::profile::run(argc, argv, chapter);
}
