/// @file cuda.h
/// @brief The part of the CUDA driver API's <cuda.h> the tutorial uses, on the CPU backend:
/// the result codes and the tensor map of the Tensor Memory Accelerator, made by
/// cuTensorMapEncodeTiled() (reached, as on a GPU, through cudaGetDriverEntryPointByVersion()).
#pragma once

#include <cstdint>

#define CUDAAPI  ///< the driver API's calling convention: nothing on Linux

/// @brief Driver API result codes, with CUDA's values.
typedef enum cudaError_enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_SUPPORTED = 801,
} CUresult;

typedef std::uint32_t cuuint32_t;  ///< as the driver API declares it
typedef std::uint64_t cuuint64_t;  ///< as the driver API declares it

/// @brief Size of a tensor map, in 8-byte words.
#define CU_TENSOR_MAP_NUM_QWORDS 16

/// @brief A tensor map: an opaque description of a tiled region of global memory.
typedef struct CUtensorMap_st {
    alignas(128) cuuint64_t opaque[CU_TENSOR_MAP_NUM_QWORDS];  ///< what cuTensorMapEncodeTiled() wrote
} CUtensorMap;

/// @brief Element types of a tensor map (the packed 4- and 6-bit types are not supported here).
typedef enum CUtensorMapDataType_enum {
    CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0,
    CU_TENSOR_MAP_DATA_TYPE_UINT16,
    CU_TENSOR_MAP_DATA_TYPE_UINT32,
    CU_TENSOR_MAP_DATA_TYPE_INT32,
    CU_TENSOR_MAP_DATA_TYPE_UINT64,
    CU_TENSOR_MAP_DATA_TYPE_INT64,
    CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
    CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
    CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
    CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
    CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ,
    CU_TENSOR_MAP_DATA_TYPE_TFLOAT32,
    CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ,
    CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B,
    CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B,
    CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B
} CUtensorMapDataType;

/// @brief Interleaved layouts (only NONE is supported by the CPU backend).
typedef enum CUtensorMapInterleave_enum {
    CU_TENSOR_MAP_INTERLEAVE_NONE = 0,
    CU_TENSOR_MAP_INTERLEAVE_16B,
    CU_TENSOR_MAP_INTERLEAVE_32B
} CUtensorMapInterleave;

/// @brief How a box is swizzled across shared memory banks.
typedef enum CUtensorMapSwizzle_enum {
    CU_TENSOR_MAP_SWIZZLE_NONE = 0,
    CU_TENSOR_MAP_SWIZZLE_32B,
    CU_TENSOR_MAP_SWIZZLE_64B,
    CU_TENSOR_MAP_SWIZZLE_128B,
    CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B,
    CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B,
    CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B
} CUtensorMapSwizzle;

/// @brief L2 fetch granularity: accepted, meaningless on the CPU.
typedef enum CUtensorMapL2promotion_enum {
    CU_TENSOR_MAP_L2_PROMOTION_NONE = 0,
    CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
    CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
    CU_TENSOR_MAP_L2_PROMOTION_L2_256B
} CUtensorMapL2promotion;

/// @brief What out-of-bounds elements of a box are filled with: zeros, or a NaN.
typedef enum CUtensorMapFloatOOBfill_enum {
    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0,
    CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
} CUtensorMapFloatOOBfill;

/// @brief Encode a tensor map of a tiled region, checking its arguments as the driver
/// documents them; a refusal returns CUDA_ERROR_INVALID_VALUE and prints the rule broken.
/// On a GPU this is a driver function: get it with cudaGetDriverEntryPointByVersion().
CUresult cuTensorMapEncodeTiled(CUtensorMap* tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                                void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,
                                const cuuint32_t* boxDim, const cuuint32_t* elementStrides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill);
/// @brief CUDA's text for a result code.
CUresult cuGetErrorString(CUresult error, const char** text);
