/// @file driver_entry.h
/// @brief cudaGetDriverEntryPointByVersion() on the CPU backend (included by cuda_runtime.h):
/// how a program reaches driver functions such as cuTensorMapEncodeTiled without linking
/// the driver library.
#pragma once

/// @brief Flags of cudaGetDriverEntryPointByVersion().
enum cudaGetDriverEntryPointFlags {
    cudaEnableDefault = 0x0,
    cudaEnableLegacyStream = 0x1,
    cudaEnablePerThreadDefaultStream = 0x2,
};

/// @brief What cudaGetDriverEntryPointByVersion() found.
enum cudaDriverEntryPointQueryResult {
    cudaDriverEntryPointSuccess = 0,
    cudaDriverEntryPointSymbolNotFound = 1,
    cudaDriverEntryPointVersionNotSufficent = 2,
};

/// @brief The driver function @p symbol in its version for CUDA @p cudaVersion (e.g.
/// 12000): cuTensorMapEncodeTiled (12000 or later) and cuGetErrorString are known. An
/// unknown symbol gives a null pointer and cudaDriverEntryPointSymbolNotFound, as on a GPU.
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr, unsigned int cudaVersion,
                                             unsigned long long flags,
                                             cudaDriverEntryPointQueryResult* driverStatus = nullptr);
