/// @file wgmma.h
/// @brief Thin wrappers around Hopper's warpgroup MMA (`wgmma`, PTX ISA "Asynchronous
/// Warpgroup Level Matrix Multiply-Accumulate Instructions"): `wgmma.mma_async` with BF16
/// operands in shared memory and FP32 accumulators, `wgmma.fence`, `wgmma.commit_group` and
/// `wgmma.wait_group`, the shared-memory address a descriptor starts from, and `setmaxnreg`,
/// which moves registers between warpgroups. Chapter 10's steps 10c and 10d use them;
/// common/tensor_cores.h has the warp-level `ldmatrix` and `mma.sync`.
///
/// Each wrapper is one instruction, executed by the 128 threads of a *warpgroup* (4
/// consecutive warps, threads 128g to 128g + 127) together: every thread calls it, at the
/// same place, with the same descriptors. On a GPU they are inline PTX and need sm_90a, the
/// arch-specific features of compute capability 9.0 (Hopper); compiled for another target
/// they trap, and the host code refuses to launch them. On the CPU backend they run the same
/// instructions with the GPU's semantics (emu/include/emu/tensor_core.h, emu/src/wgmma.cpp)
/// and report, with the call's file and line, a descriptor that does not read the tile as
/// the TMA wrote it, an operand read before its copy landed, a missing fence, commit or wait.
///
/// ## wgmma.mma_async.m64n256k16.f32.bf16.bf16
///
/// D (64 × 256 floats) = A (64 × 16 BF16) · B (16 × 256 BF16) [+ D], A and B read from shared
/// memory through 64-bit *matrix descriptors* (PTX ISA, "Matrix Descriptor Format"):
///
/// | bits | field |
/// |---|---|
/// | 0-13 | start address: (shared address & 0x3FFFF) >> 4 |
/// | 16-29 | leading dimension byte offset >> 4 |
/// | 32-45 | stride dimension byte offset >> 4 |
/// | 49-51 | base offset (0 when the swizzle's pattern starts on a 1024-byte boundary) |
/// | 62-63 | swizzle: 0 none, 1 128-byte, 2 64-byte, 3 32-byte |
/// | 14-15, 30-31, 46-48, 52-61 | reserved (0) |
///
/// The accumulators: thread t of the warpgroup (warp w = t / 32, lane l = t % 32) holds, for
/// every 8 columns j (0 to 31), d[4j] and d[4j + 1] at row 16w + l / 4, columns 8j + 2 (l % 4)
/// and 8j + 2 (l % 4) + 1, and d[4j + 2], d[4j + 3] at the same columns of row 16w + l / 4 + 8:
/// mma.sync's C fragment (common/tensor_cores.h), one per 8 columns.
///
/// ## The order the PTX ISA requires
///
/// 1. `wgmma_fence` before the first wgmma_m64n256k16_bf16, and between any other access to
///    the accumulator registers (zeroing them, say) and a later wgmma that uses them; wgmmas of
///    the same shape on the same accumulators are ordered among themselves without one.
///    Shared memory written by ordinary stores also needs `fence.proxy.async` before a wgmma
///    reads it; tiles written by the TMA and waited for on their mbarrier do not;
/// 2. the wgmmas, then `wgmma_commit_group`: they form one group;
/// 3. `wgmma_wait_group<N>` before the accumulators are read, or before the shared memory
///    the group reads is overwritten: it returns when at most N groups are in flight.
/// The fence and the wait take the accumulators so that the compiler keeps every access to
/// them on the right side of the instruction (the registers are not otherwise named there).
///
/// ## setmaxnreg: registers moved between warpgroups
///
/// A block's registers are a pool: at launch every warp gets the kernel's count per thread
/// (what ptxas reports, at most what `__launch_bounds__` allows). `setmaxnreg.dec` gives a
/// warpgroup's registers above the new count back to the pool; `setmaxnreg.inc` waits until
/// the pool can raise the warpgroup to the new count. Step 10d uses them so that the
/// warpgroup that only issues copies gives its registers to the two that hold accumulators.
/// The PTX ISA's rules, which the wrappers and the CPU backend check:
/// - the count is a multiple of 8 from 24 to 256 (a compile-time constant: a static_assert);
/// - the same setmaxnreg is executed by all 4 warps of a warpgroup, every lane of each
///   (`.sync.aligned`): call it before any branch that splits the warpgroup;
/// - `.inc` never lowers the count nor `.dec` raises it, and the registers `.inc` brings
///   hold garbage until written.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

/// @cond TUTORIAL_INTERNALS
#ifdef TUTORIAL_EMU
#include "emu/tensor_core.h"
// On the CPU backend the call's file and line come with it, for the backend's messages.
#define TUTORIAL_WGMMA_SITE_ , const char *file = __builtin_FILE(), int line = __builtin_LINE()
#define TUTORIAL_WGMMA_SITE_ALONE_ const char *file = __builtin_FILE(), int line = __builtin_LINE()
#else
#define TUTORIAL_WGMMA_SITE_
#define TUTORIAL_WGMMA_SITE_ALONE_
#endif
/// @endcond

namespace tutorial {

/// @brief How an operand's tile is stored in shared memory, as wgmma's transpose flags say.
enum class WgmmaMajor {
    k = 0,   ///< K-major (transpose flag 0): each 128-byte row runs along K (A row-major M × K)
    mn = 1,  ///< MN-major (transpose flag 1): each 128-byte row runs along M or N (B row-major K × N)
};

/// @brief The address of @p pointer, which points into shared memory, in the shared state
/// space (`cvta.to.shared`): what a descriptor's start address encodes.
__device__ __forceinline__ std::uint32_t shared_window_address(const void* pointer TUTORIAL_WGMMA_SITE_) {
#if defined(TUTORIAL_EMU)
    return ::emu::detail::shared_window_address(pointer, file, line);
#elif defined(__CUDA_ARCH__)
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
#else
    (void)pointer;
    return 0;
#endif
}

/// @cond TUTORIAL_INTERNALS
/// Tell the compiler that every accumulator may change here, so that no access to them
/// moves across the instruction that follows or precedes it.
template <int COUNT>
__device__ __forceinline__ void wgmma_touch_accumulators(float (&accumulators)[COUNT]) {
#if !defined(TUTORIAL_EMU) && defined(__CUDA_ARCH__)
#pragma unroll
    for (int i = 0; i < COUNT; ++i) asm volatile("" : "+f"(accumulators[i])::"memory");
#else
    (void)accumulators;
#endif
}
/// @endcond

/// @brief `wgmma.fence.sync.aligned`: the warpgroup's accesses to @p accumulators (and its
/// earlier register writes) are ordered before the wgmma.mma_async that follow.
template <int COUNT>
__device__ __forceinline__ void wgmma_fence(float (&accumulators)[COUNT] TUTORIAL_WGMMA_SITE_) {
    wgmma_touch_accumulators(accumulators);
#if defined(TUTORIAL_EMU)
    ::emu::detail::wgmma_fence(file, line);
#elif defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#elif defined(__CUDA_ARCH__)
    __trap();  // wgmma needs sm_90a; the host code refuses other GPUs
#endif
}

/// @brief `wgmma.commit_group.sync.aligned`: the warpgroup's wgmma.mma_async since the last
/// commit form one group, which wgmma_wait_group() counts.
__device__ __forceinline__ void wgmma_commit_group(TUTORIAL_WGMMA_SITE_ALONE_) {
#if defined(TUTORIAL_EMU)
    ::emu::detail::wgmma_commit_group(file, line);
#elif defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#elif defined(__CUDA_ARCH__)
    __trap();
#endif
}

/// @brief `wgmma.wait_group.sync.aligned PENDING`: wait until at most @p PENDING of the
/// warpgroup's committed groups are in flight; the others' results are in @p accumulators,
/// and the shared memory they read may be overwritten.
template <int PENDING, int COUNT>
__device__ __forceinline__ void wgmma_wait_group(float (&accumulators)[COUNT] TUTORIAL_WGMMA_SITE_) {
    static_assert(PENDING >= 0 && PENDING <= 7, "wgmma.wait_group takes 0 to 7");
#if defined(TUTORIAL_EMU)
    ::emu::detail::wgmma_wait_group(PENDING, file, line);
#elif defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory");
#elif defined(__CUDA_ARCH__)
    __trap();
#endif
    wgmma_touch_accumulators(accumulators);
}

/// @brief `wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16`: @p d = A·B + @p d
/// (or A·B when @p accumulate is false) for the warpgroup's 64 × 16 A and 16 × 256 B in
/// shared memory, described by @p a_descriptor and @p b_descriptor (the table above), A
/// stored A_MAJOR and B stored B_MAJOR (the instruction's transpose flags, imm-trans-a and
/// imm-trans-b). Asynchronous: @p d holds the result only after a wgmma_wait_group() that
/// completes its group (wgmma_commit_group()).
template <WgmmaMajor A_MAJOR, WgmmaMajor B_MAJOR>
__device__ __forceinline__ void wgmma_m64n256k16_bf16(float (&d)[128], std::uint64_t a_descriptor,
                                                      std::uint64_t b_descriptor, bool accumulate TUTORIAL_WGMMA_SITE_) {
#if defined(TUTORIAL_EMU)
    ::emu::detail::wgmma_bf16(d, 256, a_descriptor, b_descriptor, accumulate, A_MAJOR == WgmmaMajor::mn,
                              B_MAJOR == WgmmaMajor::mn, file, line);
#elif defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile(
        "{\n"
        ".reg .pred accumulate;\n"
        "setp.ne.b32 accumulate, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127},"
        " %128, %129, accumulate, 1, 1, %131, %132;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a_descriptor), "l"(b_descriptor), "r"(static_cast<int>(accumulate)), "n"(static_cast<int>(A_MAJOR)),
          "n"(static_cast<int>(B_MAJOR)));
#elif defined(__CUDA_ARCH__)
    (void)d, (void)a_descriptor, (void)b_descriptor, (void)accumulate;
    __trap();
#else
    (void)d, (void)a_descriptor, (void)b_descriptor, (void)accumulate;
#endif
}

/// @brief `setmaxnreg.inc.sync.aligned.u32 COUNT`: raise the calling warpgroup's registers per
/// thread to @p COUNT (a multiple of 8 from 24 to 256), waiting until the block's pool has them.
/// Executed by all 128 threads of the warpgroup together.
template <int COUNT>
__device__ __forceinline__ void setmaxnreg_inc(TUTORIAL_WGMMA_SITE_ALONE_) {
    static_assert(COUNT >= 24 && COUNT <= 256 && COUNT % 8 == 0, "setmaxnreg takes a multiple of 8 from 24 to 256");
#if defined(TUTORIAL_EMU)
    ::emu::detail::setmaxnreg(true, COUNT, file, line);
#elif defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(COUNT));
#elif defined(__CUDA_ARCH__)
    __trap();  // setmaxnreg needs sm_90a; the host code refuses other GPUs
#endif
}

/// @brief `setmaxnreg.dec.sync.aligned.u32 COUNT`: lower the calling warpgroup's registers per
/// thread to @p COUNT (a multiple of 8 from 24 to 256), giving the rest back to the block's
/// pool. Executed by all 128 threads of the warpgroup together.
template <int COUNT>
__device__ __forceinline__ void setmaxnreg_dec(TUTORIAL_WGMMA_SITE_ALONE_) {
    static_assert(COUNT >= 24 && COUNT <= 256 && COUNT % 8 == 0, "setmaxnreg takes a multiple of 8 from 24 to 256");
#if defined(TUTORIAL_EMU)
    ::emu::detail::setmaxnreg(false, COUNT, file, line);
#elif defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(COUNT));
#elif defined(__CUDA_ARCH__)
    __trap();
#endif
}

}  // namespace tutorial

/// @cond TUTORIAL_INTERNALS
#undef TUTORIAL_WGMMA_SITE_
#undef TUTORIAL_WGMMA_SITE_ALONE_
/// @endcond
