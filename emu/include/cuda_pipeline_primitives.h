/// @file cuda_pipeline_primitives.h
/// @brief The cp.async primitives of <cuda_pipeline_primitives.h> on the CPU backend:
/// __pipeline_memcpy_async(), __pipeline_commit(), __pipeline_wait_prior().
///
/// Each copy is 4, 8 or 16 bytes, with both addresses aligned to its size; it joins the
/// thread's open group; __pipeline_commit() closes the group; __pipeline_wait_prior(n)
/// completes all but the n most recent groups. Until then the destination keeps its old
/// bytes, as on a GPU (emu/src/async_copy.cpp).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "emu/async.h"

/// @brief Copy @p size_and_align bytes (4, 8 or 16) from global @p src_global to shared
/// @p dst_shared, the last @p zfill of them zeros, asynchronously.
inline void __pipeline_memcpy_async(void* dst_shared, const void* src_global, std::size_t size_and_align,
                                    std::size_t zfill = 0, const char* file = __builtin_FILE(),
                                    int line = __builtin_LINE()) {
    ::emu::async::primitive_copy(dst_shared, src_global, size_and_align, zfill, file, line);
}
/// @brief Close the calling thread's open group of copies.
inline void __pipeline_commit(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::emu::async::group_commit("__pipeline_commit()", file, line);
}
/// @brief Wait until all but the @p prior most recently committed groups have landed.
inline void __pipeline_wait_prior(std::size_t prior, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::emu::async::group_wait_prior(prior > 8 ? 8 : prior, true, "__pipeline_wait_prior()", file, line);
}
