// Chapter 9's profile: the histogram of 2^18 uniform bytes into 256 bins by global
// atomics (9a) and by a private histogram per block (9b), and of 2^17 uniform 16-bit
// samples into 2^16 bins by a cluster's distributed shared memory (9c), once each.
// 9a: 1024 blocks, one sample and one global atomic per thread. 9b: 64 blocks of one
// uint4 per thread, 16 shared atomics for it, then up to 256 global atomics per block.
// 9c: 8 clusters of 2 blocks, one uint4 per thread, an atomic in the owner's shared
// memory per sample (1 in 2 of them in the other block's). 9d: 4 clusters of 2 blocks,
// each block stages a tile of 2 uint4 per thread, reads both tiles of its cluster and
// counts the samples it owns with atomics on its own shared memory.
#include "histogram.h"
#include "tutorial_chapter.h"

#include "device_buffer.h"
#include "profile/profile.h"
#include "random.h"

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
    constexpr std::size_t n8 = std::size_t(1) << 18, n16 = std::size_t(1) << 17;
    const tutorial::DeviceBuffer<std::uint8_t> bytes(tutorial::random_bytes(n8, 9));
    std::vector<std::uint16_t> words(n16);
    const std::vector<std::uint8_t> raw = tutorial::random_bytes(2 * n16, 90);
    for (std::size_t i = 0; i < n16; ++i) words[i] = static_cast<std::uint16_t>(raw[2 * i] | (raw[2 * i + 1] << 8));
    const tutorial::DeviceBuffer<std::uint16_t> samples(words);
    tutorial::DeviceBuffer<unsigned int> bins(kMaxBins);
    // No floating-point work: a histogram counts.
    tutorial::profile::Chapter chapter{TUTORIAL_CHAPTER, CHAPTER_NAME, "2^18 bytes into 256 bins; 2^17 16-bit samples into 2^16 bins",
                                       {}};
    chapter.variants.push_back({"global atomics, one per byte", "histogram_global_kernel<unsigned char>", 0,
                                [&] { histogram_global(bytes.data(), n8, bins.data(), 256); }});
    chapter.variants.push_back({"private histogram in shared memory, uint4 loads, merged", "histogram_shared_kernel<unsigned char, true>", 0,
                                [&] { histogram_shared(bytes.data(), n8, bins.data(), 256); }});
    if (cluster_launch_supported()) {
        chapter.variants.push_back({"2^16 bins over a cluster's distributed shared memory", "histogram_cluster_kernel", 0,
                                    [&] { histogram_cluster(samples.data(), n16, bins.data(), kMaxBins); }});
        chapter.variants.push_back({"2^16 bins over a cluster, samples exchanged instead of atomics", "histogram_exchange_kernel", 0,
                                    [&] { histogram_exchange(samples.data(), n16, bins.data(), kMaxBins); }});
    }
    return tutorial::profile::run(argc, argv, chapter);
}
