/// @file launch_config.h
/// @brief The shape of a kernel launch, and the ceiling division that sizes grids.
#pragma once

#include <cuda_runtime.h>

namespace tutorial {

/// @brief Grid and block of one launch: `kernel<<<config.grid, config.block>>>(...)`.
struct LaunchConfig {
    dim3 grid;   ///< blocks in the grid
    dim3 block;  ///< threads in a block
};

/// @brief Integer division rounded up: how many pieces of size @p piece cover @p n.
///
/// Plain n / piece rounds down and would leave the last, partial piece without a block.
constexpr unsigned ceil_div(long long n, long long piece) { return static_cast<unsigned>((n + piece - 1) / piece); }

}  // namespace tutorial
