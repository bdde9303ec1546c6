/// @file ptxas_report.h
/// @brief What ptxas reported of a .cu file's kernels, compiled into the program: the
/// registers per thread and static shared memory the CPU backend's occupancy API needs.
///
/// g++ cannot know how many registers nvcc gives a kernel. For the .cu files of a chapter
/// whose line in chapters/registry says occupancy=yes, the build keeps what ptxas printed
/// when nvcc checked the file (`nvcc --resource-usage -arch=sm_90`, mk/emu.mk) and compiles
/// it into the file's object through a generated header that calls the function below.
#pragma once

/// @cond EMU_INTERNALS
namespace emu {
namespace detail {
/// @brief Remember @p report, the ptxas lines of @p source (a .cu file), for
/// cudaOccupancyMaxActiveBlocksPerMultiprocessor() and cudaFuncGetAttributes(); a null
/// @p report says that nvcc was not found when @p source was built. Both strings must
/// live as long as the program (string literals). Returns true.
bool register_ptxas_report(const char* source, const char* report);
}  // namespace detail
}  // namespace emu
/// @endcond
