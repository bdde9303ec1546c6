/// @file control.h
/// @brief Settings of the CPU backend that a program (its own tests, mostly) may change.
///
/// Everything here can also be set from the environment, which is what `make` does:
///  - EMU_SCHEDULE: the thread orders each launch runs under, e.g. "forward,reverse";
///  - EMU_THREADS: how many blocks run at once (default: the machine's hardware threads);
///  - EMU_STACK_KB: the stack of each CUDA thread, in KiB (default 64).
#pragma once

#include <string>

namespace emu {

/// @brief Choose the schedules: a comma-separated list of `forward` (thread 0 first),
/// `reverse` (the last thread first) and `random` or `random:SEED` (a seeded shuffle, new
/// at every barrier). Each launch runs under the first; a launch that uses shared memory
/// or __syncthreads() runs again under each of the others from the same memory, and a
/// different result is reported as an order dependence. The default is "forward,reverse".
/// @throws std::invalid_argument for an unknown schedule name
void set_schedules(const std::string& list);

/// @brief The schedules in force, in the syntax set_schedules() takes.
std::string schedules();

}  // namespace emu
