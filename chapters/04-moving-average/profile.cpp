// Chapter 4's profile: the moving average of 65536 floats over a window of 64, naive,
// through the read-only cache, and from a shared window, once each. The shared variant's
// window of 256 + 63 floats (1276 bytes) is well under 48 KB: the opt-in does not apply.
// Then the shared variant once more with a window of 12289 over 13312 floats (1024
// outputs): its 256 + 12288 floats (50176 bytes) need the opt-in past 48 KB, and fewer
// blocks fit on an SM. Last, 4e (going further), one pass over the first input.
#include "moving_average.h"
#include "tutorial_chapter.h"

#include "device_buffer.h"
#include "profile/profile.h"
#include "random.h"

int main(int argc, char** argv) {
    constexpr int size = 65536, window = 64;
    const tutorial::DeviceBuffer<float> input(tutorial::random_floats(size, 4));
    tutorial::DeviceBuffer<float> output(size - window + 1);
    // One addition per window element and one division per output.
    const double flops = double(size - window + 1) * (window + 1);
    tutorial::profile::Chapter chapter{TUTORIAL_CHAPTER, CHAPTER_NAME, "65536 floats, a window of 64", {}};
    chapter.variants.push_back({"the whole window from global memory", "moving_average_naive_kernel", flops,
                                [&] { moving_average_naive(input.data(), output.data(), size, window); }});
    chapter.variants.push_back({"the same through the read-only cache", "moving_average_readonly_kernel", flops,
                                [&] { moving_average_readonly(input.data(), output.data(), size, window); }});
    chapter.variants.push_back({"the block's window staged in dynamic shared memory", "moving_average_shared_kernel", flops,
                                [&] { moving_average_shared(input.data(), output.data(), size, window); }});
    constexpr int long_size = 13312, long_window = 12289;
    const tutorial::DeviceBuffer<float> long_input(tutorial::random_floats(long_size, 5));
    tutorial::DeviceBuffer<float> long_output(long_size - long_window + 1);
    chapter.variants.push_back({"the same, window 12289 over 13312 floats: 50176 bytes of shared memory, opted in",
                                "moving_average_shared_kernel", double(long_size - long_window + 1) * (long_window + 1),
                                [&] { moving_average_shared(long_input.data(), long_output.data(), long_size, long_window); }});
    // 4e (going further) on the first input: each input is added twice in double (its
    // thread's sum, then its prefix), each output is one subtraction and one division.
    chapter.variants.push_back({STEP("e") ": one pass, prefix sums of the last 4096 positions in shared memory",
                                "moving_average_stream_kernel", 2.0 * size + 2.0 * (size - window + 1),
                                [&] { moving_average_stream(input.data(), output.data(), size, window); }});
    return tutorial::profile::run(argc, argv, chapter);
}
