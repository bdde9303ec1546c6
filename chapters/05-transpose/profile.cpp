// Chapter 5's profile: the transpose of a 256 x 256 float matrix, naive, through a 32 x 32
// shared tile and through the tile padded to 32 x 33, once each. 256 is a multiple of the
// tile, so every block is full. The shared tile's column reads are the 32-way bank
// conflict of the lesson; the padded tile's are conflict-free. Then 5d (going further) on
// the same matrix, and 5c and 5d on a 255 x 257 one, whose rows do not start on 128 bytes.
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
    // 5d (going further): 64 x 64 tiles, 16 elements a thread; then 5c and 5d on a shape whose
    // rows start off 128 bytes (257 floats wide) with edge tiles on two sides, as 8191 x 8193.
    chapter.variants.push_back({STEP("d") ": sheared 72 x 65 tiles, output rows on 32-byte sectors", "transpose_wide_kernel", 0,
                                [&] { transpose_wide(input.data(), output.data(), rows, cols); }});
    constexpr int odd_rows = 255, odd_cols = 257;
    const tutorial::DeviceBuffer<float> odd_input(tutorial::random_floats(odd_rows * odd_cols, 6));
    tutorial::DeviceBuffer<float> odd_output(odd_rows * odd_cols);
    chapter.variants.push_back({STEP("c") " on 255 x 257: rows off 128 bytes, edge tiles", "transpose_padded_kernel", 0,
                                [&] { transpose_padded(odd_input.data(), odd_output.data(), odd_rows, odd_cols); }});
    chapter.variants.push_back({STEP("d") " on 255 x 257: rows off 128 bytes, edge tiles", "transpose_wide_kernel", 0,
                                [&] { transpose_wide(odd_input.data(), odd_output.data(), odd_rows, odd_cols); }});
    return tutorial::profile::run(argc, argv, chapter);
}
