/// @file kernel.h
/// @brief The CUDA language on the CPU backend: qualifiers, built-in variables,
/// __syncthreads(), warp primitives, CUDA's min/max and math functions, atomics.
///
/// Included by cuda_runtime.h. A translated .cu file (see emu/tools/cu2cpp.cpp) is plain
/// C++ that uses what this header declares; kernels run with one fiber per CUDA thread
/// (emu/src/block_runner.cpp).
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

// ---- Qualifiers ----------------------------------------------------------------------
// Every function is a host function for g++. __global__ stays in the translated source
// only as a marker: the translator already rewrote what it needs (see cu2cpp.cpp).
#define __global__                                   ///< a kernel: run with <<<grid, block>>>
#define __device__                                   ///< a function or variable kernels use
#define __host__                                     ///< a function the host uses
#define __forceinline__ inline __attribute__((always_inline))  ///< inline, as nvcc would
#define __constant__                                 ///< constant memory: ordinary memory here
#define __managed__                                  ///< managed memory: ordinary memory here
#define __launch_bounds__(...)                       ///< a hint for nvcc's register allocation: ignored
#define __align__(n) alignas(n)                      ///< alignment of a type or variable
#define __grid_constant__                            ///< a kernel parameter qualifier: ignored
/// A kernel's compile-time cluster shape: the translator passes the dimensions to
/// ::emu::detail::kernel_entered(), which tells the launch (see cu2cpp.cpp and cluster.cpp).
#define __cluster_dims__(...)
// __restrict__ is g++'s own keyword already. __noinline__ is left out: libstdc++ itself
// writes __attribute__((__noinline__)), which such a macro would break.

/// @brief The CUDA thread's coordinates inside its block. Each fiber has its own: the
/// scheduler sets it whenever it switches to a fiber.
extern __thread uint3 threadIdx;
/// @brief The block's coordinates inside the grid; each worker thread runs one block at a time.
extern __thread uint3 blockIdx;
/// @brief The shape of the block being run.
extern __thread dim3 blockDim;
/// @brief The shape of the grid being run.
extern __thread dim3 gridDim;
/// @brief Threads per warp: consecutive linear thread indices, 32 at a time.
constexpr int warpSize = 32;

/// @cond EMU_INTERNALS
namespace emu {
namespace detail {
void syncthreads(const char* file, int line);
int syncthreads_count(int predicate, const char* file, int line);
void note_order_sensitive_atomic();
void kernel_entered(const char* signature);
/// @brief The same for a kernel declared with `__cluster_dims__(x, y, z)`.
void kernel_entered(const char* signature, dim3 cluster_dims);
/// @brief Check an atomic's @p bytes at @p address when it lies in shared memory: inside a
/// variable or the dynamic bytes of its block, and for another block of the cluster, after
/// the first cluster.sync() and before that block exits (emu/src/cluster.cpp).
void check_shared_atomic(const void* address, std::size_t bytes, const char* file, int line);
/// @brief The warp-level primitives (see warp_primitive()).
enum class WarpOp { syncwarp, shfl, shfl_up, shfl_down, shfl_xor, ballot, any, all, activemask, ldmatrix, mma_sync, wgmma,
                    setmaxnreg };
[[noreturn]] void unsupported_outside_kernel(const char* what);
}  // namespace detail
}  // namespace emu
/// @endcond

/// @brief The block barrier. Every thread of the block waits here until all have
/// arrived at this same call site; the backend reports threads waiting at different
/// sites, or waiting while others have exited, as a divergent barrier.
#define __syncthreads() ::emu::detail::syncthreads(__FILE__, __LINE__)
/// @brief Barrier that also counts the threads whose @p predicate is non-zero.
#define __syncthreads_count(predicate) ::emu::detail::syncthreads_count((predicate), __FILE__, __LINE__)
/// @brief Barrier that tells whether @p predicate is non-zero in every thread.
#define __syncthreads_and(predicate) \
    (::emu::detail::syncthreads_count((predicate), __FILE__, __LINE__) == static_cast<int>(blockDim.x * blockDim.y * blockDim.z))
/// @brief Barrier that tells whether @p predicate is non-zero in any thread.
#define __syncthreads_or(predicate) (::emu::detail::syncthreads_count((predicate), __FILE__, __LINE__) != 0)

// Memory fences: one block runs on one OS thread, so only the fences between blocks
// do anything.
inline void __threadfence_block() {}                                     ///< no-op: a block runs on one OS thread
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }         ///< a full fence
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }  ///< a full fence

// ---- Warp-level primitives ---------------------------------------------------------------
// The 32 threads of consecutive linear index form a warp (the last warp of a block whose
// size is not a multiple of 32 has fewer lanes). The lanes a primitive's mask names meet
// at the call as a block meets at __syncthreads(); the result is computed from what each
// of them supplied. A mask naming a lane that never arrives, or lanes meeting at
// different primitives, is reported with the call's file:line (emu/src/warp.cpp).
/// @cond EMU_INTERNALS
namespace emu {
namespace detail {
/// @brief Meet the lanes of @p mask at this call (@p file:@p line); return the result of
/// @p op for the calling lane (for a shuffle: the bits of the value it reads).
unsigned long long warp_primitive(WarpOp op, unsigned mask, unsigned long long value, int argument, int width,
                                  const char* file, int line);
template <class T>
using if_shufflable = std::enable_if_t<std::is_trivially_copyable<T>::value && sizeof(T) <= 8, int>;
template <class T>
unsigned long long to_bits(const T& value) {
    unsigned long long bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
}
template <class T>
T from_bits(unsigned long long bits) {
    T value;
    std::memcpy(&value, &bits, sizeof(T));
    return value;
}
}  // namespace detail
}  // namespace emu
/// @endcond

/// @brief Wait until every lane named in @p mask reaches this __syncwarp().
inline void __syncwarp(unsigned mask = 0xffffffffu, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::emu::detail::warp_primitive(::emu::detail::WarpOp::syncwarp, mask, 0, 0, warpSize, file, line);
}
/// @brief @p var of lane @p src_lane (modulo @p width, within the caller's group of @p width lanes).
template <class T, ::emu::detail::if_shufflable<T> = 0>
inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize, const char* file = __builtin_FILE(),
                     int line = __builtin_LINE()) {
    return ::emu::detail::from_bits<T>(::emu::detail::warp_primitive(
        ::emu::detail::WarpOp::shfl, mask, ::emu::detail::to_bits(var), src_lane, width, file, line));
}
/// @brief @p var of the lane @p delta below the caller; the caller's own @p var when that
/// lane lies before the caller's group of @p width lanes.
template <class T, ::emu::detail::if_shufflable<T> = 0>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize, const char* file = __builtin_FILE(),
                        int line = __builtin_LINE()) {
    return ::emu::detail::from_bits<T>(::emu::detail::warp_primitive(
        ::emu::detail::WarpOp::shfl_up, mask, ::emu::detail::to_bits(var), static_cast<int>(delta), width, file, line));
}
/// @brief @p var of the lane @p delta above the caller; the caller's own @p var when that
/// lane lies past the caller's group of @p width lanes.
template <class T, ::emu::detail::if_shufflable<T> = 0>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                          const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return ::emu::detail::from_bits<T>(::emu::detail::warp_primitive(
        ::emu::detail::WarpOp::shfl_down, mask, ::emu::detail::to_bits(var), static_cast<int>(delta), width, file, line));
}
/// @brief @p var of lane (caller's lane XOR @p lane_mask); the caller's own @p var when that
/// lane lies past the caller's group of @p width lanes.
template <class T, ::emu::detail::if_shufflable<T> = 0>
inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize, const char* file = __builtin_FILE(),
                         int line = __builtin_LINE()) {
    return ::emu::detail::from_bits<T>(::emu::detail::warp_primitive(
        ::emu::detail::WarpOp::shfl_xor, mask, ::emu::detail::to_bits(var), lane_mask, width, file, line));
}
/// @brief Bit i set when lane i of @p mask has a non-zero @p predicate.
inline unsigned __ballot_sync(unsigned mask, int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return static_cast<unsigned>(
        ::emu::detail::warp_primitive(::emu::detail::WarpOp::ballot, mask, predicate != 0, 0, warpSize, file, line));
}
/// @brief Non-zero when any lane of @p mask has a non-zero @p predicate.
inline int __any_sync(unsigned mask, int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return static_cast<int>(
        ::emu::detail::warp_primitive(::emu::detail::WarpOp::any, mask, predicate != 0, 0, warpSize, file, line));
}
/// @brief Non-zero when every lane of @p mask has a non-zero @p predicate.
inline int __all_sync(unsigned mask, int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return static_cast<int>(
        ::emu::detail::warp_primitive(::emu::detail::WarpOp::all, mask, predicate != 0, 0, warpSize, file, line));
}
/// @brief The lanes of the warp that run this call together: here, those that reach this
/// same call before the block can go no further without them.
inline unsigned __activemask(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return static_cast<unsigned>(
        ::emu::detail::warp_primitive(::emu::detail::WarpOp::activemask, 0, 0, 0, warpSize, file, line));
}

// ---- min and max, as CUDA overloads them ------------------------------------------------
// CUDA declares these in the global namespace for every arithmetic pair; a mix of a
// signed and an unsigned integer compares as unsigned, as C++ would.
/// @cond EMU_INTERNALS
#define EMU_MIN_MAX_(T)                                            \
    __host__ __device__ constexpr T min(T a, T b) { return b < a ? b : a; } \
    __host__ __device__ constexpr T max(T a, T b) { return a < b ? b : a; }
EMU_MIN_MAX_(int)
EMU_MIN_MAX_(unsigned int)
EMU_MIN_MAX_(long)
EMU_MIN_MAX_(unsigned long)
EMU_MIN_MAX_(long long)
EMU_MIN_MAX_(unsigned long long)
EMU_MIN_MAX_(float)
EMU_MIN_MAX_(double)
#undef EMU_MIN_MAX_
constexpr unsigned int min(int a, unsigned int b) { return min(static_cast<unsigned int>(a), b); }
constexpr unsigned int min(unsigned int a, int b) { return min(a, static_cast<unsigned int>(b)); }
constexpr unsigned int max(int a, unsigned int b) { return max(static_cast<unsigned int>(a), b); }
constexpr unsigned int max(unsigned int a, int b) { return max(a, static_cast<unsigned int>(b)); }
constexpr long long min(long long a, int b) { return min(a, static_cast<long long>(b)); }
constexpr long long min(int a, long long b) { return min(static_cast<long long>(a), b); }
constexpr long long max(long long a, int b) { return max(a, static_cast<long long>(b)); }
constexpr long long max(int a, long long b) { return max(static_cast<long long>(a), b); }
constexpr double min(float a, double b) { return min(static_cast<double>(a), b); }
constexpr double min(double a, float b) { return min(a, static_cast<double>(b)); }
constexpr double max(float a, double b) { return max(static_cast<double>(a), b); }
constexpr double max(double a, float b) { return max(a, static_cast<double>(b)); }
/// @endcond

// ---- Math intrinsics ------------------------------------------------------------------
// <cmath> provides sqrtf, fminf, fmaxf, expf, fabsf, fmaf, ... with CUDA's names. These
// are CUDA's fast or exactly rounded variants; on the CPU they compute the exact value.
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }                  ///< 1 / sqrt(x)
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }                  ///< 1 / sqrt(x)
inline float __fdividef(float a, float b) { return a / b; }                   ///< a / b
inline float __expf(float x) { return std::exp(x); }                          ///< e^x
inline float __logf(float x) { return std::log(x); }                          ///< ln x
inline float __sinf(float x) { return std::sin(x); }                          ///< sin x
inline float __cosf(float x) { return std::cos(x); }                          ///< cos x
inline float __powf(float x, float y) { return std::pow(x, y); }              ///< x^y
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }  ///< x clamped to [0, 1]
inline float __fmul_rn(float a, float b) { return a * b; }                    ///< a * b, never fused
inline float __fadd_rn(float a, float b) { return a + b; }                    ///< a + b, never fused
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }  ///< a * b + c, rounded once
inline int __float2int_rn(float x) { return static_cast<int>(std::nearbyint(x)); }  ///< to the nearest int
inline int __float2int_rz(float x) { return static_cast<int>(x); }           ///< towards zero
inline float __int2float_rn(int x) { return static_cast<float>(x); }         ///< to the nearest float
inline int __mul24(int a, int b) { return a * b; }                            ///< a * b
inline unsigned int __umul24(unsigned int a, unsigned int b) { return a * b; }  ///< a * b

// ---- Integer intrinsics ---------------------------------------------------------------
// Bit and byte work on packed values (several small numbers in one 32-bit register), with
// CUDA's definitions: the same results as on a GPU, bit for bit.
/// Bytes of y:x (x's are 0..3, y's 4..7) picked by the selector's nibbles, 3 bits each.
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    const unsigned long long bytes = static_cast<unsigned long long>(y) << 32 | x;
    unsigned int result = 0;
    for (int n = 0; n < 4; ++n) {
        const unsigned int selector = (s >> (4 * n)) & 0x7u;
        result |= static_cast<unsigned int>((bytes >> (8 * selector)) & 0xFFu) << (8 * n);
    }
    return result;
}
/// hi:lo shifted left by shift % 32, its upper 32 bits.
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
    return static_cast<unsigned int>(((static_cast<unsigned long long>(hi) << 32 | lo) << (shift & 31u)) >> 32);
}
/// hi:lo shifted right by shift % 32, its lower 32 bits.
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
    return static_cast<unsigned int>((static_cast<unsigned long long>(hi) << 32 | lo) >> (shift & 31u));
}
/// As __funnelshift_l with the shift clamped to 32 (32 and more give lo).
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
    return shift >= 32u ? lo : __funnelshift_l(lo, hi, shift);
}
/// As __funnelshift_r with the shift clamped to 32 (32 and more give hi).
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
    return shift >= 32u ? hi : __funnelshift_r(lo, hi, shift);
}
/// The upper 32 bits of the 64-bit product.
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
    return static_cast<unsigned int>((static_cast<unsigned long long>(a) * b) >> 32);
}
/// The upper 32 bits of the 64-bit signed product.
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
/// The upper 64 bits of the 128-bit product.
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline int __popc(unsigned int x) { return __builtin_popcount(x); }             ///< bits set
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }  ///< bits set
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }  ///< leading zeros
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }         ///< 1 + index of the lowest bit set, 0 for 0
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {  ///< the bits in reverse order
    unsigned int r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline float exp10f(float x) { return std::pow(10.0f, x); }                  ///< 10^x

#include "emu/memory.h"

// ---- Atomics --------------------------------------------------------------------------
// Blocks run in parallel on several OS threads, so global atomics are real atomics. As
// in CUDA, the value converts to the type pointed to. A float sum done with atomics
// depends on the order of its terms; a launch that uses one is not compared between
// schedules (see the order check in docs/cpu-backend.md).
/// @cond EMU_INTERNALS
namespace emu {
namespace detail {
template <class T>
struct Same {
    using type = T;
};
}  // namespace detail
}  // namespace emu
#define EMU_VALUE_(T) typename ::emu::detail::Same<T>::type
/// @endcond

// Every atomic on a raw pointer first checks it when it points into shared memory (a
// decayed __shared__ array, or a cluster.map_shared_rank() pointer): the CPU backend
// catches an index past a shared array, and an access to another block of the cluster
// before the cluster barrier or after that block exited. The source location is the
// caller's (__builtin_FILE()/__builtin_LINE() as default arguments).
#define EMU_ATOMIC_SITE_ const char *file = __builtin_FILE(), int line = __builtin_LINE()
#define EMU_CHECK_ATOMIC_(address) ::emu::detail::check_shared_atomic((address), sizeof(T), file, line)
/// @brief *address += value; returns the old value.
template <class T>
inline T atomicAdd(T* address, EMU_VALUE_(T) value, EMU_ATOMIC_SITE_) {
    static_assert(std::is_arithmetic<T>::value, "atomicAdd needs a number");
    EMU_CHECK_ATOMIC_(address);
    if constexpr (std::is_floating_point<T>::value) {
        ::emu::detail::note_order_sensitive_atomic();
        T old = *address;
        T sum = old + value;
        while (!__atomic_compare_exchange(address, &old, &sum, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            sum = old + value;
        }
        return old;
    } else {
        return __atomic_fetch_add(address, value, __ATOMIC_SEQ_CST);
    }
}
/// @cond EMU_INTERNALS
#define EMU_FETCH_ATOMIC_(name, builtin)                                   \
    template <class T>                                                     \
    inline T name(T* address, EMU_VALUE_(T) value, EMU_ATOMIC_SITE_) {     \
        EMU_CHECK_ATOMIC_(address);                                        \
        return builtin(address, value, __ATOMIC_SEQ_CST);                  \
    }
EMU_FETCH_ATOMIC_(atomicSub, __atomic_fetch_sub)  // *address -= value; returns the old value
EMU_FETCH_ATOMIC_(atomicAnd, __atomic_fetch_and)  // *address &= value; returns the old value
EMU_FETCH_ATOMIC_(atomicOr, __atomic_fetch_or)    // *address |= value; returns the old value
EMU_FETCH_ATOMIC_(atomicXor, __atomic_fetch_xor)  // *address ^= value; returns the old value
#undef EMU_FETCH_ATOMIC_
/// @endcond
/// @brief *address = value; returns the old value.
template <class T>
inline T atomicExch(T* address, EMU_VALUE_(T) value, EMU_ATOMIC_SITE_) {
    EMU_CHECK_ATOMIC_(address);
    T old;
    __atomic_exchange(address, &value, &old, __ATOMIC_SEQ_CST);
    return old;
}
/// @brief *address = (*address == compare ? value : *address); returns the old value.
template <class T>
inline T atomicCAS(T* address, EMU_VALUE_(T) compare, EMU_VALUE_(T) value, EMU_ATOMIC_SITE_) {
    EMU_CHECK_ATOMIC_(address);
    __atomic_compare_exchange(address, &compare, &value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return compare;
}
/// @cond EMU_INTERNALS
namespace emu {
namespace detail {
// Store @p value while @p replaces(old, value) holds; return the value found first.
template <class T, class Replaces>
T atomic_replace_while(T* address, T value, Replaces replaces) {
    T old = *address;
    while (replaces(old, value) &&
           !__atomic_compare_exchange(address, &old, &value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    return old;
}
// Store next(old) computed from the value found; return the value found.
template <class T, class Next>
T atomic_update(T* address, Next next) {
    T old = *address;
    T value = next(old);
    while (!__atomic_compare_exchange(address, &old, &value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        value = next(old);
    }
    return old;
}
}  // namespace detail
}  // namespace emu
/// @endcond
/// @brief *address = max(*address, value); returns the old value.
template <class T>
inline T atomicMax(T* address, EMU_VALUE_(T) value, EMU_ATOMIC_SITE_) {
    EMU_CHECK_ATOMIC_(address);
    return ::emu::detail::atomic_replace_while(address, value, [](T old, T v) { return old < v; });
}
/// @brief *address = min(*address, value); returns the old value.
template <class T>
inline T atomicMin(T* address, EMU_VALUE_(T) value, EMU_ATOMIC_SITE_) {
    EMU_CHECK_ATOMIC_(address);
    return ::emu::detail::atomic_replace_while(address, value, [](T old, T v) { return v < old; });
}
/// @brief *address = (*address >= value ? 0 : *address + 1), on unsigned int; returns the old value.
inline unsigned int atomicInc(unsigned int* address, unsigned int value, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
    ::emu::detail::check_shared_atomic(address, sizeof(unsigned int), file, line);
    return ::emu::detail::atomic_update(address, [value](unsigned int old) { return old >= value ? 0u : old + 1; });
}
/// @brief *address = (*address == 0 || *address > value ? value : *address - 1); returns the old value.
inline unsigned int atomicDec(unsigned int* address, unsigned int value, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
    ::emu::detail::check_shared_atomic(address, sizeof(unsigned int), file, line);
    return ::emu::detail::atomic_update(address,
                                        [value](unsigned int old) { return old == 0 || old > value ? value : old - 1; });
}
#undef EMU_CHECK_ATOMIC_
#undef EMU_ATOMIC_SITE_
/// @cond EMU_INTERNALS
// On a kernel's pointer parameter (an emu::global_ptr), the same, after checking the
// address: atomicAdd(counter, 1) as well as atomicAdd(&counter[i], 1).
#define EMU_CHECKED_ATOMIC_(name)                                                     \
    template <class T, class... V>                                                    \
    inline T name(::emu::global_ptr<T> address, V... values) {                        \
        return name(&*address, static_cast<EMU_VALUE_(T)>(values)...);                \
    }
EMU_CHECKED_ATOMIC_(atomicAdd)
EMU_CHECKED_ATOMIC_(atomicSub)
EMU_CHECKED_ATOMIC_(atomicAnd)
EMU_CHECKED_ATOMIC_(atomicOr)
EMU_CHECKED_ATOMIC_(atomicXor)
EMU_CHECKED_ATOMIC_(atomicExch)
EMU_CHECKED_ATOMIC_(atomicCAS)
EMU_CHECKED_ATOMIC_(atomicMax)
EMU_CHECKED_ATOMIC_(atomicMin)
inline unsigned int atomicInc(::emu::global_ptr<unsigned int> address, unsigned int value) {
    return atomicInc(&*address, value);
}
inline unsigned int atomicDec(::emu::global_ptr<unsigned int> address, unsigned int value) {
    return atomicDec(&*address, value);
}
#undef EMU_CHECKED_ATOMIC_
/// @endcond
#undef EMU_VALUE_

#include "emu/launch.h"
