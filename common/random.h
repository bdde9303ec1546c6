/// @file random.h
/// @brief Seeded random inputs, the same on every machine for the same seed.
///
/// Tests never use constant inputs: with all ones, a transposed index or a swapped
/// operand still gives the right answer. The generator is written out here (SplitMix64)
/// rather than taken from `<random>`, whose distributions differ between standard
/// libraries, so that a seed printed on one machine reproduces the failure on another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace tutorial {

/// @brief The seed every test and benchmark derives its inputs from.
///
/// It is the number seed_setting() gives, and a fixed default otherwise, so that runs
/// repeat exactly.
std::uint64_t run_seed();

/// @brief The seed as the environment gives it: TUTORIAL_SEED (which `make ... SEED=n`
/// sets) when set and not empty, else SEED, so that `SEED=n build/.../bin/...` run by hand
/// takes it too; null when neither is set.
const char* seed_setting();

/// @brief The default for run_seed().
constexpr std::uint64_t kDefaultSeed = 2026;

/// @brief Mix @p base with a case's parameters (its shape, say) into a seed of its own,
/// so that every case gets different data yet reproduces from the one run seed.
std::uint64_t derive_seed(std::uint64_t base, std::initializer_list<long long> parts);

/// @brief @p count floats drawn uniformly from [@p lo, @p hi).
std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

/// @brief @p count bytes drawn uniformly from the full range 0..255.
std::vector<std::uint8_t> random_bytes(std::size_t count, std::uint64_t seed);

}  // namespace tutorial
