// The profiler's hooks into the CPU backend's runtime (emu/src/traffic.cpp implements them).
// launch.cpp calls the launch hooks around the first run of a grid only: the runs under
// other thread orders, and the run that looks for a differing element's writer, repeat
// the same accesses and are not counted. block_runner.cpp calls note_barrier() in
// __syncthreads().
#pragma once

#include "internal.h"

namespace emu {
namespace traffic {
namespace detail {

/// @brief A launch is about to run: start recording it if profiling is on.
void launch_begins(const emu::detail::LaunchRequest& request, const std::string& kernel_text);
/// @brief The launch's first run is over: stop recording and sum up what it did.
void launch_ends(const emu::detail::GridOutcome& outcome);
/// @brief The running thread reached __syncthreads().
void note_barrier();
/// @brief What moves an asynchronous copy's bytes.
enum class AsyncTraffic { cp_async, bulk, tensor };
/// @brief The running thread issued an asynchronous copy at @p file:@p line that reads
/// @p src_bytes bytes of global memory from @p src and writes @p dst_bytes bytes of shared
/// memory at @p dst (emu/src/async_copy.cpp).
void note_async_copy(AsyncTraffic kind, const void* src, std::size_t src_bytes, const void* dst, std::size_t dst_bytes,
                     const char* file, int line);

}  // namespace detail
}  // namespace traffic
}  // namespace emu
