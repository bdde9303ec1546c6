/// @file tensor_cores.h
/// @brief Thin wrappers around the PTX instructions that feed the tensor cores from shared
/// memory: `ldmatrix` (8×8 tiles of 16-bit elements into registers) and
/// `mma.sync.m16n8k16` with BF16 inputs and FP32 accumulators. Chapter 10 uses them.
///
/// Each wrapper is one instruction, executed by the 32 lanes of a warp together: every lane
/// must call it, at the same place, with its own part. On a GPU they are inline PTX and
/// need compute capability 8.0 (compiled for an older architecture, they trap). On the CPU
/// backend they run the same instructions with the GPU's semantics
/// (emu/include/emu/tensor_core.h), and report a row address that is not 16-byte aligned
/// shared memory, or lanes that do not all arrive, with the call's file and line.
///
/// ## The fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type")
///
/// A register holds two 16-bit elements: the first (lower column, or lower k) in its low
/// half. In a warp, lane `l` has `group = l / 4` and `pair = 2 * (l % 4)`:
///
/// | operand | register | elements it holds (row, column) |
/// |---|---|---|
/// | A (16×16, row-major) | a[0] | (group, pair), (group, pair + 1) |
/// | | a[1] | (group + 8, pair), (group + 8, pair + 1) |
/// | | a[2] | (group, pair + 8), (group, pair + 9) |
/// | | a[3] | (group + 8, pair + 8), (group + 8, pair + 9) |
/// | B (16×8, k × n) | b[0] | (pair, group), (pair + 1, group) |
/// | | b[1] | (pair + 8, group), (pair + 9, group) |
/// | C, D (16×8 floats) | c[0], c[1] | (group, pair), (group, pair + 1) |
/// | | c[2], c[3] | (group + 8, pair), (group + 8, pair + 1) |
///
/// ## ldmatrix (PTX ISA, "Warp-level matrix load instruction: ldmatrix")
///
/// `ldmatrix .x1/.x2/.x4` loads 1, 2 or 4 matrices of 8×8 16-bit elements. Lanes 8i to
/// 8i + 7 give the addresses of the 8 rows of matrix i (16 bytes each, on a 16-byte
/// boundary, in shared memory; the rows may lie anywhere). Register i of lane l then holds
/// row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of matrix i: exactly the layout of one
/// register of A or C above. With `.trans` each matrix arrives transposed: register i of
/// lane l holds rows 2 (l % 4) and 2 (l % 4) + 1 of column l / 4, the layout of a register of
/// B when B is stored k-major (row-major K × N).
///
/// So for a 16×16 tile of A in shared memory, `ldmatrix_x4` with lane l pointing at row
/// l % 16, column 8 (l / 16) gives a[0..3]; for a 16×16 block of row-major B (k rows, two
/// n8 tiles), `ldmatrix_x4_trans` with lane l pointing at row k = l % 16, column
/// n = 8 (l / 16) gives b[0..1] of the first n8 tile and b[0..1] of the second.
///
/// Shared memory serves one 8×8 matrix (8 rows of 16 bytes) per pass: its 8 rows are
/// conflict-free only when they fall in 8 different groups of 4 banks.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

/// @cond TUTORIAL_INTERNALS
#ifdef TUTORIAL_EMU
#include "emu/tensor_core.h"
// On the CPU backend the call's file and line come with it, for the backend's messages.
#define TUTORIAL_TENSOR_SITE_ , const char *file = __builtin_FILE(), int line = __builtin_LINE()
#else
#define TUTORIAL_TENSOR_SITE_
#endif
/// @endcond

namespace tutorial {

/// @cond TUTORIAL_INTERNALS
#if !defined(TUTORIAL_EMU)
/// The address of @p pointer in the shared state space, as ldmatrix wants it.
__device__ __forceinline__ std::uint32_t shared_address(const void* pointer) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}
#endif
/// @endcond

/// @brief `ldmatrix.sync.aligned.m8n8.x4.shared.b16`: four 8×8 matrices; this lane gives
/// @p row, the first of the 8 elements of one row (lanes 8i..8i+7: matrix i), and receives
/// one register of each matrix in @p fragment.
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&fragment)[4], const void* row TUTORIAL_TENSOR_SITE_) {
#if defined(TUTORIAL_EMU)
    ::emu::detail::ldmatrix(fragment, 4, false, row, file, line);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(fragment[0]), "=r"(fragment[1]), "=r"(fragment[2]), "=r"(fragment[3])
                 : "r"(shared_address(row)));
#elif defined(__CUDA_ARCH__)
    (void)fragment, (void)row;
    __trap();  // ldmatrix needs compute capability 8.0; the host code refuses older GPUs
#else
    (void)fragment, (void)row;
#endif
}

/// @brief `ldmatrix.sync.aligned.m8n8.x2.shared.b16`: two 8×8 matrices, their rows given by
/// lanes 0 to 15 (the addresses of lanes 16 to 31 are not used, but every lane must call).
__device__ __forceinline__ void ldmatrix_x2(std::uint32_t (&fragment)[2], const void* row TUTORIAL_TENSOR_SITE_) {
#if defined(TUTORIAL_EMU)
    ::emu::detail::ldmatrix(fragment, 2, false, row, file, line);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(fragment[0]), "=r"(fragment[1])
                 : "r"(shared_address(row)));
#elif defined(__CUDA_ARCH__)
    (void)fragment, (void)row;
    __trap();
#else
    (void)fragment, (void)row;
#endif
}

/// @brief `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`: as ldmatrix_x4(), each matrix
/// transposed on the way (a row-major K × N tile of B gives B's k-pairs).
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&fragment)[4], const void* row TUTORIAL_TENSOR_SITE_) {
#if defined(TUTORIAL_EMU)
    ::emu::detail::ldmatrix(fragment, 4, true, row, file, line);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(fragment[0]), "=r"(fragment[1]), "=r"(fragment[2]), "=r"(fragment[3])
                 : "r"(shared_address(row)));
#elif defined(__CUDA_ARCH__)
    (void)fragment, (void)row;
    __trap();
#else
    (void)fragment, (void)row;
#endif
}

/// @brief `ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16`: as ldmatrix_x2(), transposed.
__device__ __forceinline__ void ldmatrix_x2_trans(std::uint32_t (&fragment)[2], const void* row TUTORIAL_TENSOR_SITE_) {
#if defined(TUTORIAL_EMU)
    ::emu::detail::ldmatrix(fragment, 2, true, row, file, line);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(fragment[0]), "=r"(fragment[1])
                 : "r"(shared_address(row)));
#elif defined(__CUDA_ARCH__)
    (void)fragment, (void)row;
    __trap();
#else
    (void)fragment, (void)row;
#endif
}

/// @brief `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`: D = A·B + C for the warp's
/// 16×16 BF16 A, 16×8 BF16 B and 16×8 FP32 C, each lane holding the fragments of the table
/// above. @p d and @p c may be the same array (accumulate in place).
__device__ __forceinline__ void mma_m16n8k16_bf16(float (&d)[4], const std::uint32_t (&a)[4],
                                                  const std::uint32_t (&b)[2], const float (&c)[4] TUTORIAL_TENSOR_SITE_) {
#if defined(TUTORIAL_EMU)
    ::emu::detail::mma_m16n8k16_bf16(d, a, b, c, file, line);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %11, %12, %13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
#elif defined(__CUDA_ARCH__)
    (void)d, (void)a, (void)b, (void)c;
    __trap();
#else
    (void)d, (void)a, (void)b, (void)c;
#endif
}

}  // namespace tutorial

/// @cond TUTORIAL_INTERNALS
#undef TUTORIAL_TENSOR_SITE_
/// @endcond
