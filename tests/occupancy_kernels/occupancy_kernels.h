/// @file occupancy_kernels.h
/// @brief Kernels whose resources per block are fixed by construction, for the tests of
/// the CPU backend's occupancy API (tests/emu_occupancy.cpp): on the CPU backend their
/// registers per thread and static shared memory come from ptxas (sm_90), as for a chapter
/// whose registry line says occupancy=yes (mk/emu.mk).
#pragma once

#include <cuda_runtime.h>

namespace occupancy_kernels {

/// @brief out[i] = i: a few registers, no shared memory. Threads and block slots limit it.
__global__ void light(float* out);

/// @brief 40 KiB of __shared__ variables (a 10,240-float tile), blocks of up to 1024
/// threads: shared memory limits it.
__global__ void static_shared(float* out);

/// @brief Declared with __launch_bounds__(256, 2): at most 256 threads a block, and at
/// least 2 such blocks per SM, so ptxas may use 65536 / (256 × 2) = 128 registers per
/// thread; it needs more (192 values live at once), so it uses all 128 and spills.
/// Registers limit it.
__global__ void register_heavy(const float* in, float* out, int n);

/// @brief The kernel templated_shared<Words>: @p words floats of __shared__ variables, for
/// 1024 (4 KiB) or 8192 (32 KiB) (one template, two kernels that ptxas reports apart);
/// null for another number. A template kernel is named only in the file that defines it
/// (nvcc's rule without -rdc), hence these two functions.
const void* templated_shared(int words);

/// @brief cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, templated_shared<Words>,
/// threads, 0) for @p words = Words, 1024 or 8192: the overload for a kernel named directly.
cudaError_t templated_shared_blocks_per_sm(int* blocks, int words, int threads);

/// @brief Dynamic shared memory only (extern __shared__), a few registers.
__global__ void dynamic_shared(float* out);

}  // namespace occupancy_kernels
