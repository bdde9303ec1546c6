/// @file memory.h
/// @brief Checked memory for kernels on the CPU backend: global pointers that know their
/// cudaMalloc buffer, and per-block shared memory that knows its bounds.
///
/// The translator (emu/tools/cu2cpp.cpp) makes kernels use these without the student's
/// source changing:
///  - a kernel's pointer parameter `A` is shadowed, inside the kernel body, by a
///    global_ptr made with checked_parameter(A, "A");
///  - `__shared__ float tile[16][16];` becomes a reference to a shared_array<float, 16, 16>
///    that lives in the block's shared memory (shared_variable());
///  - `extern __shared__ float cache[];` becomes a dynamic_shared_array<float>.
/// Every index is checked. An access outside the buffer stops the kernel with a message
/// that names the kernel, the block, the thread, the buffer, its size and the offset.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "emu/async.h"    // asynchronous copies: an access to bytes a copy has yet to write is reported
#include <gpu_model/traffic.h>  // the profiler: what an element access returns in a profiling build
#include "emu/vector_types.h"  // float2, float4, uchar4: named in messages about accesses through casts

namespace emu {
/// @cond EMU_INTERNALS
namespace detail {

/// @brief One cudaMalloc allocation (defined in emu/src/memory.cpp).
struct Allocation;

/// @brief Where a pointer parameter may read and write: the bytes [begin, end) of its
/// allocation, or nothing for a null or foreign pointer.
struct Bounds {
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
    const Allocation* allocation = nullptr;
    /// For a pointer made by a cast (emu::pointer_cast) into a `__shared__` variable or the
    /// dynamic shared memory: its name (begin and end are its bytes). Null otherwise.
    const char* shared_name = nullptr;
};

/// @brief The bounds that a pointer made by a cast (emu::pointer_cast) from the raw
/// pointer @p pointer is checked against: its cudaMalloc allocation, the running block's
/// `__shared__` variable or dynamic shared memory, or, for any other memory (a local
/// array, host memory), everything. @p name becomes the name of the kernel parameter
/// that points into the allocation, or the shared variable's (null: none known).
Bounds cast_bounds(const void* pointer, const char*& name);

/// @brief Stop the kernel: an access of @p element_size bytes (type @p type_name, null if
/// unknown) at @p address, through a pointer that a cast made from @p name (or any
/// pointer whose address is not a multiple of @p alignment), lies outside @p bounds or is
/// misaligned; the access is written at @p file:@p line (null: not known).
[[noreturn]] void cast_access_fault(const char* name, const void* address, std::size_t element_size,
                                    std::size_t alignment, const char* type_name, const Bounds& bounds, bool cast,
                                    const char* file, int line);

/// @brief Look up the allocation @p pointer points into, and note @p name for messages.
Bounds parameter_bounds(const void* pointer, const char* name);

/// @brief Stop the kernel: @p name[@p index] at @p address is outside @p bounds; the
/// access is written at @p file:@p line (null: not known).
[[noreturn]] void global_out_of_bounds(const char* name, const void* origin, const void* address,
                                       std::size_t element_size, const char* type_name, const Bounds& bounds,
                                       const char* file = nullptr, int line = 0);

/// @brief Where an access is written in the source.
struct AccessSite {
    const char* file = nullptr;  ///< null: not known
    int line = 0;
};
/// @brief The site of the `__shared__` array access the running CUDA thread is making:
/// noted by emu::at(), taken by the check of the element.
extern __thread AccessSite pending_shared_site;

/// @brief Note that the running CUDA thread accesses the @p size bytes at @p address, element
/// @p address - @p base of @p name (null base: a `__shared__` variable, looked up), written at
/// @p file:@p line; stop the kernel when two threads of the block changed it without an
/// atomic and with no synchronisation between (emu/src/races.cpp).
void race_access(const void* address, std::size_t size, const char* name, const void* base, const char* file,
                 int line);
/// @brief Whether the running block's accesses go to race_access(): only in the first blocks
/// of a launch's first run, as the check costs time on every access.
extern __thread bool race_checked;

/// @brief Set when the running grid has passed its time limit (emu/src/time_limit.cpp).
extern std::atomic<bool> time_is_up;
/// @brief Stop the running CUDA thread, which is at @p file:@p line (null: not known),
/// because its grid has passed its time limit.
[[noreturn]] void stop_at_time_limit(const char* file, int line);
/// @brief At every checked access, barrier and warp primitive: stop once the time is up,
/// so that a kernel in an endless loop ends.
inline void check_time(const char* file = nullptr, int line = 0) {
    if (__builtin_expect(time_is_up.load(std::memory_order_relaxed), 0)) stop_at_time_limit(file, line);
}

/// @brief The address the order check is looking for the writer of (null otherwise).
extern const void* watched_address;
/// @brief Note that the running thread touched the watched address.
void note_watched_access();

/// @brief Stop the kernel: index @p index of a shared array at @p array, whose dimension
/// has @p extent elements of @p element_bytes each, is out of range; the access is
/// written at @p file:@p line (null: not known).
[[noreturn]] void shared_out_of_bounds(const void* array, long long index, std::size_t extent,
                                       std::size_t element_bytes, const char* file = nullptr, int line = 0);

/// @brief Stop the kernel: dynamic shared array @p name indexed at @p index is outside
/// the @p bytes bytes given at launch; the access is written at @p file:@p line (null: not known).
[[noreturn]] void dynamic_shared_out_of_bounds(const char* name, long long index, std::size_t element_size,
                                               const char* type_name, std::size_t bytes, const char* file = nullptr,
                                               int line = 0);

/// @brief The block's storage for the `__shared__` variable declared at the site @p key;
/// allocated and filled with 0xFF bytes (NaN floats) the first time a thread of the block
/// reaches the declaration.
void* shared_storage(const void* key, std::size_t bytes, std::size_t alignment, const char* name,
                     const std::size_t* extents, std::size_t rank, const char* type_name, const char* file, int line);

/// @brief The running block's dynamic shared memory: the launch's third parameter.
struct DynamicShared {
    void* base;
    std::size_t bytes;
};
/// @brief Return the running block's dynamic shared memory.
DynamicShared dynamic_shared();

/// @brief A printable name for element types of buffers, e.g. "float"; null when unknown.
template <class T>
struct TypeName {
    static constexpr const char* value = nullptr;
};
#define EMU_TYPE_NAME_(T)                           \
    template <>                                     \
    struct TypeName<T> {                            \
        static constexpr const char* value = #T;    \
    };
EMU_TYPE_NAME_(float)
EMU_TYPE_NAME_(double)
EMU_TYPE_NAME_(char)
EMU_TYPE_NAME_(signed char)
EMU_TYPE_NAME_(unsigned char)
EMU_TYPE_NAME_(short)
EMU_TYPE_NAME_(unsigned short)
EMU_TYPE_NAME_(int)
EMU_TYPE_NAME_(unsigned int)
EMU_TYPE_NAME_(long)
EMU_TYPE_NAME_(unsigned long)
EMU_TYPE_NAME_(long long)
EMU_TYPE_NAME_(unsigned long long)
EMU_TYPE_NAME_(bool)
EMU_TYPE_NAME_(float2)
EMU_TYPE_NAME_(float4)
EMU_TYPE_NAME_(uchar4)
#undef EMU_TYPE_NAME_
/// @brief TypeName without cv-qualifiers.
template <class T>
constexpr const char* type_name = TypeName<std::remove_cv_t<T>>::value;

/// @brief Indices may be any integer or unscoped enumeration, as for built-in arrays.
template <class I>
using if_index = std::enable_if_t<std::is_integral<I>::value || std::is_enum<I>::value, int>;

/// @brief The arithmetic of a checked pointer class, @p Pointer (global_ptr, remote_ptr),
/// which holds its raw pointer in a member `pointer_` and makes this class its friend: as
/// a raw pointer's, and a pointer moved elsewhere is a copy of the one it came from,
/// checked like it.
template <class Pointer>
class pointer_arithmetic {
public:
    /// @brief The pointer @p offset elements further, checked like this one.
    template <class I, if_index<I> = 0>
    Pointer operator+(I offset) const {
        Pointer moved = self();
        moved.pointer_ += offset;
        return moved;
    }
    /// @brief The pointer @p offset elements further, checked like @p p.
    template <class I, if_index<I> = 0>
    friend Pointer operator+(I offset, const Pointer& p) {
        return p + offset;
    }
    /// @brief The pointer @p offset elements back, checked like this one.
    template <class I, if_index<I> = 0>
    Pointer operator-(I offset) const {
        Pointer moved = self();
        moved.pointer_ -= offset;
        return moved;
    }
    /// @brief Elements between two pointers.
    std::ptrdiff_t operator-(const Pointer& other) const { return self().pointer_ - other.pointer_; }
    /// @brief Move @p offset elements further.
    template <class I, if_index<I> = 0>
    Pointer& operator+=(I offset) {
        self().pointer_ += offset;
        return self();
    }
    /// @brief Move @p offset elements back.
    template <class I, if_index<I> = 0>
    Pointer& operator-=(I offset) {
        self().pointer_ -= offset;
        return self();
    }
    /// @brief Move to the next element.
    Pointer& operator++() {
        ++self().pointer_;
        return self();
    }
    /// @brief Move to the next element; return the pointer as it was.
    Pointer operator++(int) {
        Pointer old = self();
        ++self().pointer_;
        return old;
    }
    /// @brief Move to the previous element.
    Pointer& operator--() {
        --self().pointer_;
        return self();
    }
    /// @brief Move to the previous element; return the pointer as it was.
    Pointer operator--(int) {
        Pointer old = self();
        --self().pointer_;
        return old;
    }

private:
    Pointer& self() { return static_cast<Pointer&>(*this); }
    const Pointer& self() const { return static_cast<const Pointer&>(*this); }
};

}  // namespace detail
/// @endcond

/// @brief A pointer into a cudaMalloc buffer that checks every access.
///
/// Behaves like `T*` in kernel code: indexing, `*`, `->`, arithmetic, comparison, and
/// conversion to `T*` for passing it on (the converted raw pointer is not checked).
template <class T>
class global_ptr : public detail::pointer_arithmetic<global_ptr<T>> {
public:
    /// @brief A null pointer.
    global_ptr() = default;
    /// @brief Wrap kernel parameter @p name, whose value is @p pointer.
    global_ptr(T* pointer, const char* name)
        : pointer_(pointer), origin_(pointer), name_(name), bounds_(detail::parameter_bounds(pointer, name)) {}
    /// @brief The pointer that a cast (emu::pointer_cast) at @p file:@p line made from one
    /// called @p name: checked against @p bounds, and for the alignment of T.
    global_ptr(T* pointer, const char* name, const detail::Bounds& bounds, const char* file, int line)
        : pointer_(pointer), origin_(pointer), name_(name), bounds_(bounds), file_(file), line_(line), cast_(true) {}

    /// @brief The element @p index places further, after checking it is inside the buffer.
    template <class I, detail::if_index<I> = 0, class U = T>
    EMU_ELEMENT_ACCESS_ traffic::element_t<U, traffic::Space::global> operator[](I index) const {
        return EMU_ELEMENT_(traffic::Space::global, checked(pointer_ + index));
    }
    /// @brief The element pointed to, after checking it is inside the buffer.
    template <class U = T>
    EMU_ELEMENT_ACCESS_ traffic::element_t<U, traffic::Space::global> operator*() const {
        return EMU_ELEMENT_(traffic::Space::global, checked(pointer_));
    }
    /// @brief Member access, after checking the element is inside the buffer.
    T* operator->() const { return checked(pointer_); }
    /// @brief The raw pointer, for passing on; accesses through it are not checked.
    operator T*() const { return pointer_; }
    /// @brief The same pointer, whose failed accesses name @p file:@p line (see emu::at()).
    global_ptr located(const char* file, int line) const {
        global_ptr same = *this;
        same.file_ = file;
        same.line_ = line;
        return same;
    }
    /// @brief Explicit casts to other pointer types, as `(const float4*)p` would do.
    template <class U>
    explicit operator U*() const {
#ifdef EMU_PROFILE
        traffic::detail::note_pointer_cast_to(pointer_);  // the profiler cannot follow the cast pointer
#endif
        return (U*)pointer_;
    }
    /// @brief This pointer cast to U* at @p file:@p line (emu::pointer_cast): still checked
    /// against this buffer, and for the alignment of U.
    template <class U>
    global_ptr<U> cast_to(const char* file, int line) const {
        return global_ptr<U>(reinterpret_cast<U*>(pointer_), name_, bounds_, file, line);
    }

    using detail::pointer_arithmetic<global_ptr>::operator-;
    /// @brief Elements between this pointer and a raw one.
    std::ptrdiff_t operator-(const T* other) const { return pointer_ - other; }

private:
    friend class detail::pointer_arithmetic<global_ptr>;
    T* checked(T* address) const {
        constexpr std::size_t size = sizeof(T);
        detail::check_time(file_, line_);
        const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(address);
        // A null or foreign pointer has empty bounds, so every access fails here.
        if (__builtin_expect(at < bounds_.begin || at + size > bounds_.end, 0)) {
            if (cast_) {
                detail::cast_access_fault(name_, address, size, alignof(T), detail::type_name<T>, bounds_, true, file_, line_);
            }
            detail::global_out_of_bounds(name_, origin_, address, size, detail::type_name<T>, bounds_, file_, line_);
        }
        // A GPU loads and stores an element of N bytes only at a multiple of its alignment
        // (16 for float4); only a cast can make a pointer that is not.
        if (__builtin_expect(at % alignof(T) != 0, 0)) {
            detail::cast_access_fault(name_, address, size, alignof(T), detail::type_name<T>, bounds_, cast_, file_, line_);
        }
        if (__builtin_expect(address == detail::watched_address, 0)) {
            detail::note_watched_access();
        }
        if (__builtin_expect(detail::race_checked, 0)) detail::race_access(address, size, name_, origin_, file_, line_);
        return address;
    }

    T* pointer_ = nullptr;
    T* origin_ = nullptr;
    const char* name_ = "";
    detail::Bounds bounds_;
    const char* file_ = nullptr;  // where the access is written, when known
    int line_ = 0;
    bool cast_ = false;  // made by a cast: file_:line_ is the cast's
};

/// @brief Shadow a kernel's pointer parameter with a checked one (the translator calls this).
template <class T>
global_ptr<T> checked_parameter(T* pointer, const char* name) {
    return global_ptr<T>(pointer, name);
}
/// @brief `void*` parameters cannot be indexed; they stay raw.
inline void* checked_parameter(void* pointer, const char*) { return pointer; }
/// @brief `const void*` parameters stay raw too.
inline const void* checked_parameter(const void* pointer, const char*) { return pointer; }

template <class T, std::size_t N, std::size_t... Rest>
struct shared_array;

/// @cond EMU_INTERNALS
namespace detail {
template <class T, std::size_t... Extents>
struct RawArray {
    using type = T;
};
template <class T, std::size_t N, std::size_t... Rest>
struct RawArray<T, N, Rest...> {
    using type = typename RawArray<T, Rest...>::type[N];
};
template <class T, std::size_t... Rest>
struct SharedRow {
    using type = shared_array<T, Rest...>;
    using raw = typename RawArray<T, Rest...>::type;
};
template <class T>
struct SharedRow<T> {
    using type = T;
    using raw = T;
};
}  // namespace detail
/// @endcond

/// @brief A `__shared__` array, `T[N][Rest...]`, whose indices are checked.
///
/// Same size and layout as the built-in array. It converts to a pointer to its first
/// row, as the built-in array decays.
template <class T, std::size_t N, std::size_t... Rest>
struct shared_array {
    using row_type = typename detail::SharedRow<T, Rest...>::type;  ///< what one index gives
    using raw_row = typename detail::SharedRow<T, Rest...>::raw;    ///< the same as a built-in type
    /// @brief What one index gives: a row, or for the last index an element (`T&`, or the
    /// profiler's element_ref in a profiling build).
    using access_type = std::conditional_t<sizeof...(Rest) == 0, traffic::element_t<T, traffic::Space::shared>, row_type&>;
    /// @brief The same through a const array.
    using const_access_type =
        std::conditional_t<sizeof...(Rest) == 0, traffic::element_t<const T, traffic::Space::shared>, const row_type&>;

    /// @brief Row or element @p index, after checking 0 ≤ index < N.
    template <class I, detail::if_index<I> = 0>
    EMU_ELEMENT_ACCESS_ access_type operator[](I index) {
        row_type& found = element(index, take_site());
        if constexpr (sizeof...(Rest) == 0) {
            return EMU_ELEMENT_(traffic::Space::shared, &found);
        } else {
            return found;
        }
    }
    /// @copydoc operator[]
    // (Written out again rather than calling the other: in a profiling build the access
    // site is the caller's return address, so neither may call the other.)
    template <class I, detail::if_index<I> = 0>
    EMU_ELEMENT_ACCESS_ const_access_type operator[](I index) const {
        const row_type& found = const_cast<shared_array*>(this)->element(index, take_site());
        if constexpr (sizeof...(Rest) == 0) {
            return EMU_ELEMENT_(traffic::Space::shared, &found);
        } else {
            return found;
        }
    }
    /// @brief operator[], for an access written at @p site (null file: not known).
    template <class I, detail::if_index<I> = 0>
    __attribute__((always_inline)) row_type& element(I index, detail::AccessSite site) {
        return element(index, site.file, site.line);
    }
    /// @brief operator[], for an access written at @p file:@p line (null: not known).
    template <class I, detail::if_index<I> = 0>
    __attribute__((always_inline)) row_type& element(I index, const char* file, int line) {
        detail::check_time(file, line);
        if (__builtin_expect(static_cast<unsigned long long>(index) >= N, 0)) {
            detail::shared_out_of_bounds(this, static_cast<long long>(index), N, sizeof(row_type), file, line);
        }
        if constexpr (sizeof...(Rest) == 0) {
            if (__builtin_expect(detail::async_watch != 0, 0)) detail::async_shared_access(&rows[index], sizeof(T), file, line);
            if (__builtin_expect(detail::race_checked, 0)) detail::race_access(&rows[index], sizeof(T), nullptr, nullptr, file, line);
        }
        return rows[index];
    }
    operator raw_row*() { return reinterpret_cast<raw_row*>(rows); }  ///< decay to a pointer, unchecked
    operator const raw_row*() const { return reinterpret_cast<const raw_row*>(rows); }  ///< decay, unchecked
    row_type* begin() { return rows; }                    ///< for range-for
    row_type* end() { return rows + N; }                  ///< for range-for
    const row_type* begin() const { return rows; }        ///< for range-for
    const row_type* end() const { return rows + N; }      ///< for range-for

    row_type rows[N];  ///< the elements

private:
    /// The site emu::at() noted for this access. Rows stay the array's own; only the
    /// element itself completes the access, so only the last index clears the site.
    __attribute__((always_inline)) static detail::AccessSite take_site() {
        detail::AccessSite& site = detail::pending_shared_site;
        const detail::AccessSite here = site;
        if constexpr (sizeof...(Rest) == 0) site = detail::AccessSite{};
        return here;
    }
};

/// @cond EMU_INTERNALS
namespace detail {
template <class T>
struct SharedShape {
    using element = T;
    static constexpr std::size_t rank = 0;
    static constexpr const std::size_t* extents() { return nullptr; }
};
template <class T, std::size_t N, std::size_t... Rest>
struct SharedShape<shared_array<T, N, Rest...>> {
    using element = T;
    static constexpr std::size_t rank = 1 + sizeof...(Rest);
    static constexpr std::size_t values[rank] = {N, Rest...};
    static constexpr const std::size_t* extents() { return values; }
};
}  // namespace detail
/// @endcond

/// @brief The block's instance of the `__shared__` variable declared at one site.
///
/// @p Site is a distinct type per declaration (the translator passes a lambda), so each
/// declaration, and each instance of a kernel template, gets its own variable.
/// @p alignment is the declaration's `alignas`/`__align__`, when it has one (a TMA
/// destination must be 128-byte aligned).
template <class T, class Site>
T& shared_variable(Site, const char* name, const char* file, int line, std::size_t alignment = 0) {
    static const char key = 0;
    using Shape = detail::SharedShape<T>;
    const std::size_t natural = alignof(T) < 16 ? 16 : alignof(T);
    return *static_cast<T*>(detail::shared_storage(&key, sizeof(T), alignment > natural ? alignment : natural, name,
                                                   Shape::extents(), Shape::rank,
                                                   detail::type_name<typename Shape::element>, file, line));
}

/// @brief `extern __shared__ T name[]`: the block's dynamic shared memory, as many bytes
/// as the launch's third parameter, with checked indices.
template <class T>
class dynamic_shared_array {
public:
    /// @brief The running block's dynamic shared memory, seen as an array of T called @p name.
    explicit dynamic_shared_array(const char* name) : name_(name) {
        const detail::DynamicShared region = detail::dynamic_shared();
        base_ = static_cast<T*>(region.base);
        bytes_ = region.bytes;
    }
    /// @brief Element @p index, after checking it lies inside the launch's bytes.
    template <class I, detail::if_index<I> = 0>
    EMU_ELEMENT_ACCESS_ traffic::element_t<T, traffic::Space::shared> operator[](I index) const {
        detail::check_time(file_, line_);
        if (__builtin_expect(static_cast<unsigned long long>(index) >= bytes_ / sizeof(T), 0)) {
            detail::dynamic_shared_out_of_bounds(name_, static_cast<long long>(index), sizeof(T), detail::type_name<T>,
                                                 bytes_, file_, line_);
        }
        if (__builtin_expect(detail::async_watch != 0, 0)) detail::async_shared_access(&base_[index], sizeof(T), file_, line_);
        if (__builtin_expect(detail::race_checked, 0)) detail::race_access(&base_[index], sizeof(T), name_, base_, file_, line_);
        return EMU_ELEMENT_(traffic::Space::shared, &base_[index]);
    }
    /// @brief The same array, whose failed accesses name @p file:@p line (see emu::at()).
    dynamic_shared_array located(const char* file, int line) const {
        dynamic_shared_array same = *this;
        same.file_ = file;
        same.line_ = line;
        return same;
    }
    /// @brief Decay to a pointer, as the built-in array does (accesses through it are not checked).
    operator T*() const { return base_; }
    /// @brief Explicit casts to other pointer types: `static_cast<float*>(bytes)`.
    template <class U>
    explicit operator U*() const {
        return (U*)base_;
    }

private:
    T* base_;
    std::size_t bytes_;
    const char* name_;
    const char* file_ = nullptr;  // where the access is written, when known
    int line_ = 0;
};

/// @brief `extern __shared__ T name[]` at namespace scope: looks up the running block's
/// dynamic shared memory at each use.
template <class T>
class dynamic_shared_global {
public:
    /// @brief Name the array for messages.
    constexpr explicit dynamic_shared_global(const char* name) : name_(name) {}
    /// @brief Element @p index of the running block's dynamic shared memory, checked.
    /// (Always inlined, so that the profiler sees the kernel's line as the access site.)
    template <class I, detail::if_index<I> = 0>
    __attribute__((always_inline)) inline traffic::element_t<T, traffic::Space::shared> operator[](I index) const {
        return dynamic_shared_array<T>(name_)[index];
    }
    /// @brief Decay to a pointer into the running block's dynamic shared memory.
    operator T*() const { return static_cast<T*>(detail::dynamic_shared().base); }
    /// @brief The running block's dynamic shared memory as a checked array.
    dynamic_shared_array<T> local() const { return dynamic_shared_array<T>(name_); }

private:
    const char* name_;
};

/// @name emu::at(): the translator writes `A[i]` in a kernel, for a checked pointer
/// parameter or a `__shared__` array A, as `::emu::at(A, __FILE__, __LINE__, 1)[i]` (1:
/// the number of subscripts written after A), so that an access outside its buffer names
/// its own line, not the launch's. The checked pointers and dynamic arrays are taken by
/// value: for a const and a non-const one alike, a better match than the last overload's
/// forwarding reference.
/// @{
template <class T>
global_ptr<T> at(global_ptr<T> pointer, const char* file, int line, int) {
    return pointer.located(file, line);
}
template <class T, std::size_t N, std::size_t... Rest>
shared_array<T, N, Rest...>& at(shared_array<T, N, Rest...>& array, const char* file, int line, int subscripts) {
    // Rows stay the array's own, so the site waits for the check of the element; only when
    // the subscripts written reach an element: a row bound to a reference and indexed
    // later, elsewhere, must not report this line.
    detail::pending_shared_site =
        subscripts == 1 + static_cast<int>(sizeof...(Rest)) ? detail::AccessSite{file, line} : detail::AccessSite{};
    return array;
}
/// A helper's `const Tile&` parameter bound to a kernel's `__shared__` array.
template <class T, std::size_t N, std::size_t... Rest>
const shared_array<T, N, Rest...>& at(const shared_array<T, N, Rest...>& array, const char* file, int line,
                                      int subscripts) {
    detail::pending_shared_site =
        subscripts == 1 + static_cast<int>(sizeof...(Rest)) ? detail::AccessSite{file, line} : detail::AccessSite{};
    return array;
}
template <class T>
dynamic_shared_array<T> at(dynamic_shared_array<T> array, const char* file, int line, int) {
    return array.located(file, line);
}
template <class T>
dynamic_shared_array<T> at(dynamic_shared_global<T> array, const char* file, int line, int) {
    return array.local().located(file, line);
}
/// @brief Anything else (a name the kernel reused for a local array, say) as it is.
template <class T>
T&& at(T&& anything, const char*, int, int) {
    return static_cast<T&&>(anything);
}
/// @}

/// @cond EMU_INTERNALS
namespace detail {
// The raw pointer type a cast starts from: a pointer itself, or a checked pointer's T*.
template <class T>
struct CastSource {
    static constexpr bool pointer = std::is_pointer<T>::value;
    using raw = T;
};
template <class T>
struct is_global_ptr : std::false_type {};
template <class T>
struct is_global_ptr<global_ptr<T>> : std::true_type {};
template <class T>
struct CastSource<global_ptr<T>> {
    static constexpr bool pointer = true;
    using raw = T*;
};
template <class T, std::size_t N, std::size_t... Rest>
struct CastSource<shared_array<T, N, Rest...>> {  // a __shared__ array decays to its first row
    static constexpr bool pointer = true;
    using raw = typename shared_array<T, N, Rest...>::raw_row*;
};
template <class T>
struct CastSource<dynamic_shared_array<T>> {  // extern __shared__ T name[] decays to T*
    static constexpr bool pointer = true;
    using raw = T*;
};
template <class T>
struct CastSource<dynamic_shared_global<T>> {
    static constexpr bool pointer = true;
    using raw = T*;
};
// The checked array of the same shape as the built-in array T: float[3][64][20] gives
// shared_array<float, 3, 64, 20>.
template <class T, std::size_t... Extents>
struct SharedArrayOf {
    using type = shared_array<T, Extents...>;
};
template <class T, std::size_t N, std::size_t... Extents>
struct SharedArrayOf<T[N], Extents...> : SharedArrayOf<T, Extents..., N> {};
}  // namespace detail
/// @endcond

/// @brief What the translator writes for `reinterpret_cast<To>(from)`, and for a C-style
/// cast to a pointer to a CUDA vector type (`(const float4*)p`).
///
/// A cast to a pointer keeps the checks: from a checked pointer parameter, or to a pointer
/// to a struct (float4, uchar4, a kernel's own struct) from any pointer, it gives a
/// global_ptr that checks every access through it, and through any arithmetic on it,
/// against the buffer the pointer points into (its cudaMalloc allocation, or its
/// `__shared__` variable), and for the alignment a GPU requires; its messages name the
/// cast's line (@p file and @p line default to the caller's: GCC's __builtin_FILE and
/// __builtin_LINE, which follow the translator's #line directives). In a profiling build a
/// cast to a pointer type gives an emu::traffic::cast_pointer, so that
/// `*reinterpret_cast<const float4*>(&A[i])` counts as one 16-byte access of global or
/// shared memory (whichever the address lies in); everything else is reinterpret_cast.
template <class To, class From>
decltype(auto) pointer_cast(From&& from, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    using Source = std::remove_cv_t<std::remove_reference_t<From>>;
    if constexpr (std::is_pointer<To>::value && std::is_array<std::remove_pointer_t<To>>::value &&
                  detail::CastSource<Source>::pointer) {
        // Memory seen as a multi-dimensional array (`*reinterpret_cast<float (*)[3][64][20]>(
        // bytes)`: stages in the dynamic shared memory): the same bytes as a shared_array of
        // that shape, so every index is checked against its dimension, and every element's
        // races and pending copies as in a __shared__ array of that type (the copies' check
        // looks only at shared memory, the races' at any address a block's threads share).
        (void)file;
        (void)line;
        const typename detail::CastSource<Source>::raw raw = from;
        return reinterpret_cast<typename detail::SharedArrayOf<std::remove_pointer_t<To>>::type*>(raw);
    } else if constexpr (std::is_pointer<To>::value && detail::CastSource<Source>::pointer) {
        const typename detail::CastSource<Source>::raw raw = from;  // a checked pointer gives its raw one
#ifdef EMU_PROFILE
        (void)file;
        (void)line;
        return traffic::cast_pointer<std::remove_pointer_t<To>>(reinterpret_cast<To>(raw));
#else
        using Element = std::remove_pointer_t<To>;
        if constexpr (std::is_void<Element>::value || std::is_function<Element>::value) {
            return reinterpret_cast<To>(raw);
        } else if constexpr (detail::is_global_ptr<Source>::value) {
            return from.template cast_to<Element>(file, line);
        } else if constexpr (std::is_class<Element>::value) {
            const char* name = nullptr;
            const detail::Bounds bounds = detail::cast_bounds(reinterpret_cast<const void*>(raw), name);
            return global_ptr<Element>(reinterpret_cast<To>(raw), name, bounds, file, line);
        } else {
            // A raw pointer to a scalar stays raw: host code casts host pointers this way.
            return reinterpret_cast<To>(raw);
        }
#endif
    } else {
        (void)file;
        (void)line;
        return reinterpret_cast<To>(std::forward<From>(from));
    }
}

}  // namespace emu

/// @cond EMU_INTERNALS
namespace emu::detail {
/// @brief The value a load through @p Pointer (a raw pointer or a global_ptr) gives.
template <class Pointer>
using loaded_t = std::remove_cv_t<typename std::pointer_traits<Pointer>::element_type>;
}  // namespace emu::detail
/// @endcond

// The loads with a cache hint are plain loads on the CPU. Through a checked kernel parameter
// (global_ptr) they are checked and counted like any load, and always inlined, so that the
// profiler sees the kernel's line as the access site.

/// @brief Load through the read-only cache.
template <class Pointer>
__attribute__((always_inline)) inline emu::detail::loaded_t<Pointer> __ldg(Pointer address) {
    return *address;
}
/// @brief Load cached in L2 only (not in L1).
template <class Pointer>
__attribute__((always_inline)) inline emu::detail::loaded_t<Pointer> __ldcg(Pointer address) {
    return *address;
}
