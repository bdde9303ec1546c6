// Chapter 6's profile: the sum of 65536 floats by the tree with interleaved addressing,
// the tree with sequential addressing, and the float4 + warp-shuffle kernel, once each.
// The trees take two passes (256 blocks, then one); the warp kernel one launch of 64
// blocks of one float4 per thread, the last of which adds their 64 partial sums.
#include "reduction.h"
#include "tutorial_chapter.h"

#include "device_buffer.h"
#include "profile/profile.h"
#include "random.h"

int main(int argc, char** argv) {
    constexpr int n = 65536;
    const tutorial::DeviceBuffer<float> input(tutorial::random_floats(n, 6));
    tutorial::DeviceBuffer<float> sum(1), workspace(reduce_workspace_floats(n));
    // One addition per element, less one.
    const double flops = n - 1;
    tutorial::profile::Chapter chapter{TUTORIAL_CHAPTER, CHAPTER_NAME, "65536 floats", {}};
    chapter.variants.push_back({"shared-memory tree, interleaved addressing (t % 2s == 0)", "reduce_interleaved_kernel",
                                flops, [&] { reduce_interleaved(input.data(), sum.data(), n, workspace.data()); }});
    chapter.variants.push_back({"shared-memory tree, sequential addressing (t < s)", "reduce_sequential_kernel", flops,
                                [&] { reduce_sequential(input.data(), sum.data(), n, workspace.data()); }});
    chapter.variants.push_back({"float4 loads while adding, warp shuffles, the last block adds the partial sums", "reduce_warp_kernel", flops,
                                [&] { reduce_warp(input.data(), sum.data(), n, workspace.data()); }});
    return tutorial::profile::run(argc, argv, chapter);
}
