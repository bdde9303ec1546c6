/// @file async_api.h
/// @brief What <cuda/barrier> and <cuda/pipeline> share on the CPU backend: thread scopes,
/// aligned_size_t, and how a copy's arguments become raw pointers and an alignment.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "emu/async.h"

namespace cuda {

/// @brief The threads that synchronise through an object, as libcu++'s cuda::thread_scope.
enum thread_scope {
    thread_scope_system = 0,  ///< every thread of the system
    thread_scope_device = 1,  ///< every thread of the device
    thread_scope_block = 2,   ///< the threads of a block: the only scope the CPU backend supports
    thread_scope_thread = 3,  ///< the calling thread alone
};

/// @brief A size in bytes that the caller promises is a multiple of @p Alignment, with
/// source and destination aligned to it too: lets memcpy_async use wider copies.
template <std::size_t Alignment>
struct aligned_size_t {
    static_assert(Alignment > 0 && (Alignment & (Alignment - 1)) == 0, "aligned_size_t: the alignment must be a power of 2");
    static constexpr std::size_t align = Alignment;  ///< the promised alignment
    std::size_t value;                               ///< the size in bytes
    /// @brief A size of @p size bytes.
    explicit constexpr aligned_size_t(std::size_t size) : value(size) {}
    /// @brief The size in bytes.
    constexpr operator std::size_t() const { return value; }
};

}  // namespace cuda

/// @cond EMU_INTERNALS
namespace emu {
namespace async {

/// @brief The alignment a size type promises: aligned_size_t's, else 1.
template <class Size, class = void>
struct SizeAlign {
    static constexpr std::size_t value = 1;
};
template <class Size>
struct SizeAlign<Size, std::void_t<decltype(Size::align)>> {
    static constexpr std::size_t value = Size::align;
};

/// @brief The element type a copy's pointer argument points to: a raw pointer's, a checked
/// kernel parameter's, a `__shared__` array's or an `extern __shared__` array's.
template <class P>
using pointee = std::remove_pointer_t<typename ::emu::detail::CastSource<std::remove_cv_t<std::remove_reference_t<P>>>::raw>;

/// @brief The raw pointer of a copy's pointer argument.
template <class P>
auto raw(P&& pointer) {
    using Raw = typename ::emu::detail::CastSource<std::remove_cv_t<std::remove_reference_t<P>>>::raw;
    static_assert(std::is_pointer<Raw>::value, "memcpy_async: the destination and the source must be pointers");
    const Raw result = pointer;
    return result;
}

/// @brief The alignment libcu++ derives for a copy: the largest of the element type's and
/// the size's (void counts as char), as cuda::memcpy_async does.
template <class Dst, class Src, class Size>
constexpr std::size_t copy_alignment() {
    using D = std::remove_cv_t<pointee<Dst>>;
    using S = std::remove_cv_t<pointee<Src>>;
    static_assert(std::is_same<D, S>::value || std::is_void<D>::value || std::is_void<S>::value,
                  "cuda::memcpy_async: the destination and the source must point to the same type");
    using T = std::conditional_t<std::is_void<D>::value, char, D>;
    static_assert(std::is_trivially_copyable<T>::value, "memcpy_async requires a trivially copyable type");
    return alignof(T) < SizeAlign<Size>::value ? SizeAlign<Size>::value : alignof(T);
}

/// @brief A group of one thread: what memcpy_async without a group uses.
struct single_thread {
    static constexpr unsigned thread_rank() { return 0; }  ///< the caller
    static constexpr unsigned size() { return 1; }         ///< one thread
};

}  // namespace async
}  // namespace emu
/// @endcond
