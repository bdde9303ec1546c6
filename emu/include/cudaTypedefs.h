/// @file cudaTypedefs.h
/// @brief The driver API's function pointer types, as CUDA 13's <cudaTypedefs.h> names
/// them (with the version they have had since: no unversioned names).
#pragma once

#include <cuda.h>

/// @brief cuTensorMapEncodeTiled, as introduced in CUDA 12.0.
typedef CUresult(CUDAAPI* PFN_cuTensorMapEncodeTiled_v12000)(
    CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank, void* globalAddress,
    const cuuint64_t* globalDim, const cuuint64_t* globalStrides, const cuuint32_t* boxDim,
    const cuuint32_t* elementStrides, CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
    CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill);
/// @brief cuGetErrorString, as introduced in CUDA 6.0.
typedef CUresult(CUDAAPI* PFN_cuGetErrorString_v6000)(CUresult error, const char** pStr);
