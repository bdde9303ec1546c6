/// @file histogram_copy.h
/// @brief The benchmark's copy-only row (the project's code, not the student's): 9b's loads
/// without its counting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

/// @brief Threads of the grid histogram_copy() launches for @p n bytes: 9b's blocks
/// (histogram_shared_blocks: one uint4 per thread, at most kHistogramMaxBlocks) of
/// kHistogramBlock threads. histogram_copy() writes one word per thread.
std::size_t histogram_copy_threads(std::size_t n);

/// @brief Read the @p n bytes of @p input the way histogram_shared() reads 8-bit samples: the
/// same grid, the same dynamic shared memory (unused here, so that as many blocks share an SM),
/// and the same grid-stride loop of two 16-byte loads in flight per round. Instead of counting
/// each byte, thread t XORs the 4-byte words of its uint4s and writes the result to
/// @p per_thread[t], histogram_copy_threads(n) words in all: the least work that keeps the
/// loads.
/// @throws std::invalid_argument unless @p input is 16-byte aligned and @p n a multiple of
/// 16 (the benchmark's 2^28 bytes are; 9b's head and tail of single bytes are left out)
void histogram_copy(const std::uint8_t* input, std::size_t n, unsigned int* per_thread);

/// @brief What histogram_copy() writes, computed on the CPU: word t is the XOR of the
/// little-endian 4-byte words of the uint4s v = t, t + T, t + 2T, ... of @p input, with T =
/// @p threads.
std::vector<unsigned int> histogram_copy_reference(const std::vector<std::uint8_t>& input, std::size_t threads);
