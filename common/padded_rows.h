/// @file padded_rows.h
/// @brief A matrix whose rows start on 16 bytes, for kernels that copy rows in 16-byte pieces
/// (cp.async of 16 bytes, the Tensor Memory Accelerator): the matrix itself, or a padded copy.
#pragma once

#include "device_buffer.h"

namespace tutorial {

/// @brief The rows × cols row-major matrix @p matrix as a to_rows × pitch one whose rows start
/// on 16 bytes: @p matrix itself when to_rows = rows, pitch = cols and its rows already start
/// on 16 bytes; else a copy in @p scratch, enqueued on the default stream, with every element
/// past the matrix's rows and columns zero.
/// @tparam T float or __nv_bfloat16 (explicitly instantiated in padded_rows.cu)
/// @param matrix  device pointer to the rows × cols matrix, row-major, anywhere
/// @param rows    its rows
/// @param cols    its columns
/// @param to_rows at least rows
/// @param pitch   at least cols, and pitch · sizeof(T) a multiple of 16
/// @param scratch where the copy goes when one is needed (replaced by a new buffer), freed in
///                stream order when it goes, after the work enqueued before then
/// @throws std::logic_error for a pitch or to_rows that breaks those rules
template <typename T>
const T* rows_on_16_bytes(const T* matrix, int rows, int cols, int to_rows, int pitch, ScratchBuffer<T>& scratch);

}  // namespace tutorial
