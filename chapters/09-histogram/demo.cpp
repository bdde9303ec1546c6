// Chapter 9 demo: the histogram of the bytes of a million-byte text, and of its pairs of
// bytes as 16-bit values.
//
//   make chapter9 run
//
// The text is made up on the spot: words of random letters drawn as often as letters are
// in English, separated by spaces. Its bytes go into 256 bins with your 9a and 9b, its
// 16-bit pairs (two letters, or a letter and a space) into 65536 bins with 9a and 9c. Each
// result is compared with the CPU's; the demo prints the most common bytes and pairs.
#include "histogram.h"
#include "tutorial_chapter.h"

#include "demo.h"
#include "device_buffer.h"
#include "histogram_reference.h"
#include "random.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr std::size_t kBytes = std::size_t(1) << 20;

// How often each letter a..z comes in English text, in tenths of a percent.
constexpr int kLetterWeights[26] = {82, 15, 28, 43, 127, 22, 20, 61, 70, 2, 8, 40, 24,
                                    67, 75, 19, 1,  60, 63, 91, 28, 10, 24, 2,  20, 1};

std::vector<std::uint8_t> make_text(std::uint64_t seed) {
    const std::vector<float> u = tutorial::random_floats(kBytes, seed, 0.0f, 1.0f);
    int total = 0;
    for (int w : kLetterWeights) total += w;
    std::vector<std::uint8_t> text(kBytes);
    for (std::size_t i = 0; i < kBytes; ++i) {
        // One character in six is a space: words of five letters on average.
        if (u[i] < 1.0f / 6.0f) {
            text[i] = ' ';
            continue;
        }
        int pick = static_cast<int>((u[i] - 1.0f / 6.0f) / (5.0f / 6.0f) * total);
        int letter = 0;
        while (letter < 25 && pick >= kLetterWeights[letter]) pick -= kLetterWeights[letter++];
        text[i] = static_cast<std::uint8_t>('a' + letter);
    }
    return text;
}

std::string shown(unsigned int value, int sample_bytes) {
    std::string text;
    for (int b = 0; b < sample_bytes; ++b) {
        const char c = static_cast<char>((value >> (8 * b)) & 0xFFu);  // the GPU is little-endian: first byte lowest
        text += c == ' ' ? '_' : c;
    }
    return text;
}

void print_top(const std::vector<unsigned int>& bins, int sample_bytes, std::size_t samples) {
    std::vector<std::pair<unsigned int, unsigned int>> order;
    for (std::size_t v = 0; v < bins.size(); ++v) order.push_back({bins[v], static_cast<unsigned int>(v)});
    std::sort(order.rbegin(), order.rend());
    for (int i = 0; i < 6; ++i) {
        std::printf("    '%s' %8u  %5.2f%%  ", shown(order[i].second, sample_bytes).c_str(), order[i].first,
                    100.0 * order[i].first / static_cast<double>(samples));
        std::printf("%s\n", std::string(static_cast<std::size_t>(200.0 * order[i].first / samples), '#').c_str());
    }
}

template <class Sample>
bool check(const char* how, void (*histogram)(const Sample*, std::size_t, unsigned int*, int),
           const tutorial::DeviceBuffer<Sample>& input, std::size_t n, int num_bins,
           const std::vector<unsigned int>& expected) {
    tutorial::DeviceBuffer<unsigned int> bins(static_cast<std::size_t>(num_bins));
    bins.poison();
    histogram(input.data(), n, bins.data(), num_bins);
    const bool right = bins.download() == expected;
    std::printf("  %-32s %s\n", how, right ? "the same as the CPU's" : "WRONG (run `make " CHAPTER_NAME " test`)");
    return right;
}

}  // namespace

int main() {
    return tutorial::run_demo([] {
        const std::vector<std::uint8_t> text = make_text(tutorial::derive_seed(tutorial::run_seed(), {9}));
        std::vector<std::uint16_t> pairs(kBytes / 2);
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            pairs[i] = static_cast<std::uint16_t>(text[2 * i] | (text[2 * i + 1] << 8));
        }
        const tutorial::DeviceBuffer<std::uint8_t> bytes(text);
        const tutorial::DeviceBuffer<std::uint16_t> words(pairs);
        const std::vector<unsigned int> byte_bins = tutorial::histogram_reference(text, 256);
        const std::vector<unsigned int> pair_bins = tutorial::histogram_reference(pairs, kMaxBins);

        std::printf("A made-up text of %zu bytes, in 256 bins (a space shows as _):\n", kBytes);
        bool all_right = check<std::uint8_t>("histogram_global (" STEP("a") ")", histogram_global, bytes, kBytes, 256, byte_bins);
        all_right &= check<std::uint8_t>("histogram_shared (" STEP("b") ")", histogram_shared, bytes, kBytes, 256, byte_bins);
        print_top(byte_bins, 1, kBytes);

        std::printf("\nIts %zu pairs of bytes as 16-bit samples, in 65536 bins:\n", pairs.size());
        all_right &= check<std::uint16_t>("histogram_global (" STEP("a") ")", histogram_global, words, pairs.size(), kMaxBins, pair_bins);
        std::string why;
        if (cluster_launch_supported(&why)) {
            all_right &= check<std::uint16_t>("histogram_cluster (" STEP("c") ")", histogram_cluster, words, pairs.size(), kMaxBins,
                                              pair_bins);
            all_right &= check<std::uint16_t>("histogram_exchange (" STEP("d") ")", histogram_exchange, words, pairs.size(), kMaxBins,
                                              pair_bins);
        } else {
            std::printf("  histogram_cluster (" STEP("c") ") and histogram_exchange (" STEP("d") ") not run: %s\n", why.c_str());
        }
        print_top(pair_bins, 2, pairs.size());
        std::printf("\nThe bytes fall in 27 of the 256 bins, the pairs in at most 27 × 27 = 729 of the 65536: a skewed input, where "
                    "many threads add to the same few bins at once.\n");
        return all_right;
    });
}
