// rows_on_16_bytes: chapter 8's 8d and chapter 10's TMA steps read rows in 16-byte pieces, and
// copy a matrix whose rows do not start on 16 bytes into one whose rows do.
#include "padded_rows.h"

#include "cuda_check.h"
#include "launch_config.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tutorial {
namespace {

// A copy of the rows x cols matrix `from` in `to`, to_rows x pitch: thread x of the grid
// writes elements kPiece * x ... of a row of `to` as one 16-byte store, in the rows blockIdx.y,
// blockIdx.y + gridDim.y, ...; its loads of `from` are one element each, as `from`'s rows may
// start anywhere. (No division: working out each thread's row and column from one flat index
// took a 64-bit division per 16 bytes, and chapter 8's padding about 5% longer.)
template <typename T>
__global__ void pad_rows_kernel(const T* from, int rows, int cols, T* to, int to_rows, int pitch) {
    constexpr int kPiece = 16 / sizeof(T);
    const int col = (blockIdx.x * blockDim.x + threadIdx.x) * kPiece;
    if (col >= pitch) return;
    for (int row = blockIdx.y; row < to_rows; row += gridDim.y) {
        alignas(16) T piece[kPiece] = {};  // every element is set below; {} keeps gcc from doubting it
#pragma unroll
        for (int j = 0; j < kPiece; ++j) {
            piece[j] = row < rows && col + j < cols ? from[static_cast<size_t>(row) * cols + col + j] : T(0.0f);
        }
        *reinterpret_cast<uint4*>(&to[static_cast<size_t>(row) * pitch + col]) = *reinterpret_cast<const uint4*>(piece);
    }
}

}  // namespace

template <typename T>
const T* rows_on_16_bytes(const T* matrix, int rows, int cols, int to_rows, int pitch, ScratchBuffer<T>& scratch) {
    constexpr int kPiece = 16 / sizeof(T);
    if (to_rows < rows || pitch < cols || pitch % kPiece != 0) {
        throw std::logic_error("rows_on_16_bytes: a " + std::to_string(rows) + " x " + std::to_string(cols) +
                               " matrix cannot go into " + std::to_string(to_rows) + " rows of " + std::to_string(pitch) +
                               " elements (pitch a multiple of " + std::to_string(kPiece) + ")");
    }
    if (to_rows == rows && pitch == cols && reinterpret_cast<std::uintptr_t>(matrix) % 16 == 0) return matrix;
    scratch = ScratchBuffer<T>(static_cast<size_t>(to_rows) * pitch);
    const dim3 grid(ceil_div(pitch / kPiece, 256), std::min(to_rows, 65535));  // 65535: grid.y's limit
    pad_rows_kernel<T><<<grid, 256>>>(matrix, rows, cols, scratch.data(), to_rows, pitch);
    CUDA_CHECK_KERNEL("pad_rows_kernel");
    return scratch.data();
}

template const float* rows_on_16_bytes(const float*, int, int, int, int, ScratchBuffer<float>&);
template const __nv_bfloat16* rows_on_16_bytes(const __nv_bfloat16*, int, int, int, int, ScratchBuffer<__nv_bfloat16>&);

}  // namespace tutorial
