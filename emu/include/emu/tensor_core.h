/// @file tensor_core.h
/// @brief The matrix instructions of the tensor cores on the CPU backend: `ldmatrix`
/// (shared memory to the fragments of `mma.sync`), `mma.sync.m16n8k16` with BF16 inputs and
/// FP32 accumulators, and Hopper's warpgroup MMA (`wgmma.mma_async` with its shared-memory
/// descriptors, `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group`) and `setmaxnreg`.
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

/// @brief The address of @p pointer in the block's shared memory window, as
/// `cvta.to.shared` gives it (the arena's first byte is address 0); stops the kernel when
/// @p pointer is not in the block's shared memory.
std::uint32_t shared_window_address(const void* pointer, const char* file, int line);

/// @brief The calling thread's `wgmma.fence.sync.aligned`: its accesses to the accumulator
/// registers before it are ordered before the wgmma.mma_async after it.
void wgmma_fence(const char* file, int line);

/// @brief The calling thread's `wgmma.commit_group.sync.aligned`: its wgmma.mma_async not yet
/// committed form one group.
void wgmma_commit_group(const char* file, int line);

/// @brief The calling thread's `wgmma.wait_group.sync.aligned N`: its committed groups
/// complete until at most @p pending are in flight; their results reach its registers.
void wgmma_wait_group(int pending, const char* file, int line);

/// @brief The calling lane's part of `wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16`
/// with both operands in shared memory: D = A·B (+ D when @p accumulate) for the warpgroup's
/// 64 × 16 A (@p a_descriptor; M-major when @p transpose_a, else K-major) and 16 × n B
/// (@p b_descriptor; N-major when @p transpose_b, else K-major), each of its @p n / 2
/// accumulators @p d in the PTX ISA's fragment layout. The result is computed when the
/// warp's lanes meet and reaches @p d when a wgmma.wait_group completes its group.
void wgmma_bf16(float* d, unsigned n, std::uint64_t a_descriptor, std::uint64_t b_descriptor, bool accumulate,
                bool transpose_a, bool transpose_b, const char* file, int line);

/// @brief The calling lane's part of `setmaxnreg.{inc,dec}.sync.aligned.u32 count` (@p increase:
/// .inc): no register changes hands on the CPU, but the warp's 32 lanes must meet at the call,
/// and the 4 warps of its warpgroup must execute the same setmaxnreg, in the same order.
void setmaxnreg(bool increase, unsigned count, const char* file, int line);

}  // namespace detail
}  // namespace emu
/// @endcond
