/// @file launch_config.h
/// @brief The shape of a kernel launch, the ceiling division that sizes grids, and the
/// choice of a kernel template's instance by a value known at run time.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

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

/// @brief Calls @p launch(std::integral_constant<int, V>{}) for the V among @p VALUES that
/// equals @p value; returns false, calling nothing, when none does.
///
/// A template argument that sizes a kernel's `__shared__` arrays (a tile, a number of
/// stages) must be known when the kernel is compiled, so an entry point that takes it at run
/// time launches the instance compiled for it: `launch` reads the value from the type of the
/// constant it is given (its static member `value`), and the caller names the values it
/// supports once, here.
template <int... VALUES, class Launch>
bool launch_instance_for(int value, Launch&& launch) {
    return ((value == VALUES && (launch(std::integral_constant<int, VALUES>{}), true)) || ...);
}

}  // namespace tutorial
