/// @file control.h
/// @brief Settings of the CPU backend that a program (its own tests, mostly) may change.
///
/// Everything here can also be set from the environment, which is what `make` does:
///  - EMU_SCHEDULE: the thread orders each launch runs under, e.g. "forward,reverse";
///  - EMU_THREADS: how many blocks run at once (default: the machine's hardware threads);
///  - EMU_STACK_KB: the stack of each CUDA thread, in KiB (default 64);
///  - EMU_TIMEOUT: the time limit of one run of a grid, in seconds (default 20; 0: none).
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

/// @brief Stop a grid still running after @p seconds (0: never): its launch fails with
/// cudaErrorLaunchTimeout, and a message that names the kernel and where its threads
/// are. A thread in a loop that makes no checked access, barrier or warp primitive
/// cannot be stopped: some seconds later the program exits with a message (code 124).
/// The default is EMU_TIMEOUT, else 20 seconds.
/// @throws std::invalid_argument for a negative or non-finite number
void set_time_limit(double seconds);

/// @brief The time limit in force, in seconds (0: none).
double time_limit();

/// @brief How many blocks run at once: one per worker thread (EMU_THREADS, else the
/// machine's hardware threads). cudaDeviceProp::multiProcessorCount is an H100's 132 instead,
/// so that a launcher sizes its grids as it would on the GPU.
unsigned worker_threads();

}  // namespace emu
