/// @file tensor_core.h
/// @brief The warp-wide matrix instructions of the tensor cores on the CPU backend:
/// `ldmatrix` (shared memory to the fragments of `mma.sync`) and `mma.sync.m16n8k16` with
/// BF16 inputs and FP32 accumulators.
///
/// A chapter does not call these itself: common/tensor_cores.h wraps the PTX
/// instructions for both backends, and calls these on the CPU. Like the other warp
/// primitives (kernel.h), each is collective: the 32 lanes of the warp meet at the call,
/// each supplies its part (a row address, or its fragment registers), and each receives
/// the part of the result the PTX ISA gives it (emu/src/tensor_core.cpp). A call that not
/// all 32 lanes reach, an ldmatrix row that is not 16 bytes of one `__shared__` variable
/// on a 16-byte boundary, are reported with the call's file:line.
#pragma once

#include <cstdint>

/// @cond EMU_INTERNALS
namespace emu {
namespace detail {

/// @brief The calling lane's part of `ldmatrix.sync.aligned.m8n8.x{matrices}[.trans].shared.b16`:
/// it gives the address of one 8-element row (lanes 8i to 8i + 7 the rows of matrix i; the
/// rows of lanes past 8 * @p matrices are not read) and receives @p matrices registers.
void ldmatrix(std::uint32_t* fragment, unsigned matrices, bool transpose, const void* row, const char* file, int line);

/// @brief The calling lane's part of `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`:
/// D = A·B + C for the warp's 16×16 A, 16×8 B and 16×8 C, each lane holding the elements the
/// PTX ISA's fragment layouts give it.
void mma_m16n8k16_bf16(float* d, const std::uint32_t* a, const std::uint32_t* b, const float* c, const char* file,
                       int line);

}  // namespace detail
}  // namespace emu
/// @endcond
