/// @file emu_for_clangd.h
/// @brief For editors only: lets clangd read a .cu file of the CPU backend (BACKEND=emu)
/// as CUDA, with the backend's own headers (emu/include).
///
/// compile_commands.json (tools/compile_db.py) includes this first in every .cu entry
/// of an emu build. The backend's headers define __global__, __device__ and the other
/// qualifiers as nothing, since its translator (emu/tools/cu2cpp) rewrites launches into
/// plain C++; clangd reads the original file, launches included, so here they are
/// clang's CUDA attributes again, and a launch finds the function clang calls for it.
/// Nothing is ever compiled with this header.
#pragma once

// The backend's functions (warp shuffles, atomics, math) are plain C++ functions; in
// clang's CUDA mode kernels may call them only if they count as __host__ __device__.
// The standard headers it uses come first, so that only the backend's own declarations
// are read that way.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#pragma clang force_cuda_host_device begin
#include "cuda_runtime.h"
// The asynchronous copies, barriers and cooperative groups of chapters 8 and 9.
#include "cooperative_groups.h"
#include "cuda/barrier"
#include "cuda/pipeline"
#include "cuda_pipeline.h"
// BF16 and the tensor cores' ldmatrix and mma.sync of chapter 10.
#include "cuda_bf16.h"
#include "emu/tensor_core.h"
#pragma clang force_cuda_host_device end

#undef __global__
#undef __device__
#undef __host__
#undef __constant__
#undef __shared__
#undef __align__
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __constant__ __attribute__((constant))
#define __shared__ __attribute__((shared))
// As CUDA spells it: a GNU attribute, which may follow __shared__ (alignas may not).
#define __align__(n) __attribute__((aligned(n)))

/// What clang calls for `kernel<<<grid, block, bytes, stream>>>(...)`; declared only.
extern "C" cudaError_t __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_bytes = 0,
                                                   cudaStream_t stream = 0);
