#include "random.h"

#include <cstdlib>
#include <string>

namespace tutorial {

namespace {
// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and statistically good enough for test data.
struct SplitMix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
};
}  // namespace

const char* seed_setting() {
    const char* text = std::getenv("TUTORIAL_SEED");
    if (text != nullptr && *text != '\0') return text;
    text = std::getenv("SEED");
    return text != nullptr && *text != '\0' ? text : nullptr;
}

std::uint64_t run_seed() {
    const char* text = seed_setting();
    if (text != nullptr && *text != '\0') {
        char* end = nullptr;
        const unsigned long long value = std::strtoull(text, &end, 10);
        if (end != nullptr && *end == '\0') {
            return value;
        }
    }
    return kDefaultSeed;
}

std::uint64_t derive_seed(std::uint64_t base, std::initializer_list<long long> parts) {
    SplitMix64 mix{base};
    std::uint64_t seed = mix.next();
    for (long long part : parts) {
        mix.state ^= static_cast<std::uint64_t>(part) * 0xD6E8FEB86659FD93ull;
        seed ^= mix.next();
    }
    return seed;
}

std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float lo, float hi) {
    SplitMix64 generator{seed};
    std::vector<float> values(count);
    for (float& value : values) {
        // The top 24 bits give a float in [0, 1) with every value exactly representable.
        const float unit = static_cast<float>(generator.next() >> 40) * (1.0f / 16777216.0f);
        value = lo + (hi - lo) * unit;
    }
    return values;
}

std::vector<std::uint8_t> random_bytes(std::size_t count, std::uint64_t seed) {
    SplitMix64 generator{seed};
    std::vector<std::uint8_t> values(count);
    for (std::uint8_t& value : values) {
        value = static_cast<std::uint8_t>(generator.next() >> 56);
    }
    return values;
}

}  // namespace tutorial
