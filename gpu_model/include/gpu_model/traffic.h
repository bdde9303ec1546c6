/// @file traffic.h
/// @brief The memory-traffic profiler of the CPU backend: what each kernel launch asks of
/// global and shared memory, counted the way Nsight Compute counts it on a GPU.
///
/// Every access through a kernel's checked pointers and shared arrays (emu/memory.h) is
/// recorded while profiling is on, with its access site, load or store, element size and
/// address. The warp model:
///  - 32 consecutive linear thread ids of a block form a warp (threadIdx.x varies fastest);
///  - a request is the k-th dynamic execution of one access site by the threads of one warp,
///    as if the warp ran in lockstep: lane l's k-th execution joins lane m's k-th.
///
/// Where the model is approximate:
///  - Divergence. When some lanes of a warp skip an access that the others make (an `if`,
///    a loop whose trip count differs per lane), the GPU issues the access for the active
///    lanes only, and so does the model as long as the lanes that skip do so for good. But
///    when lanes execute one site a different number of times and reconverge, their k-th
///    executions pair up differently from the GPU's: a lane whose loop ran fewer times
///    joins the next request early. Kernels whose lanes all run the same path are exact.
///  - The compiler. nvcc merges consecutive 4-byte shared accesses of one site into 8- or
///    16-byte ones where it can prove the alignment (an unrolled loop along a row); the
///    model infers these from the addresses (emu/src/traffic.cpp, wide_accesses), so it
///    may merge where nvcc could not prove what the addresses show. nvcc may also keep a
///    value in a register instead of loading it again, or turn a branch into a select that
///    loads on every lane; the model counts those accesses as the source writes them.
///  - Casts. `*reinterpret_cast<const float4*>(&A[i])` (and a C-style cast to a pointer
///    to a CUDA vector type, `(float4*)p`) is counted as one 16-byte access: the backend's
///    translator writes these casts as emu::pointer_cast, whose result finds out whether
///    it points into a cudaMalloc buffer or the block's shared memory. Stored in a raw
///    pointer variable (`const float4* p = ...;`), the cast pointer is no longer followed:
///    the launch is then marked uncounted_casts. `auto p = reinterpret_cast<...>(...)`
///    keeps it counted.
///  - What it cannot see: accesses through other raw pointers (a pointer made from a
///    parameter, a decayed shared array), atomics, member access through `->`, and
///    `__ldg(&p[i])` (taking the address gives a raw pointer).
///
/// Recording needs to tell loads from stores and to know the site, so a profiling build
/// (compiled with -DEMU_PROFILE, which `make profile` and `make test-profile` do) makes
/// an element access return a small proxy, emu::traffic::element_ref, instead of `T&`.
/// Ordinary builds return `T&` as before and record nothing: profiling costs them nothing,
/// and their compile errors read as before. In a profiling build, counting is further
/// switched on and off at run time (start() and take()); while it is off, an access costs
/// one test of a global flag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace emu {
namespace traffic {

/// @brief Which memory an access goes to.
enum class Space : unsigned char { global, shared };
/// @brief Whether it reads or writes.
enum class Direction : unsigned char { load, store };

/// @brief Global memory traffic of one direction (loads or stores) of one launch.
struct GlobalCounts {
    std::uint64_t requests = 0;         ///< warp-level requests: one per warp per executed access
    std::uint64_t accesses = 0;         ///< thread-level accesses: the active lanes of the requests
    std::uint64_t sectors = 0;          ///< 32-byte sectors the requests touch, counted per request
    std::uint64_t bytes_requested = 0;  ///< bytes the active lanes asked for
    std::uint64_t unique_bytes = 0;     ///< distinct bytes touched by the whole launch: the compulsory traffic
    std::uint64_t ideal_sectors = 0;    ///< sectors the same requests would need if every one were fully coalesced
    /// @brief Bytes moved in whole sectors.
    std::uint64_t bytes_in_sectors() const { return sectors * 32; }
};

/// @brief Shared memory traffic of one direction of one launch.
struct SharedCounts {
    std::uint64_t requests = 0;          ///< warp-level requests
    std::uint64_t wavefronts = 0;        ///< passes through the 32 banks the requests need
    std::uint64_t ideal_wavefronts = 0;  ///< passes they would need without bank conflicts
    std::uint64_t bytes_requested = 0;   ///< bytes the active lanes asked for
    /// @brief Wavefronts beyond the ideal: for elements of 4 bytes or fewer, wavefronts - requests.
    std::uint64_t bank_conflicts() const { return wavefronts - ideal_wavefronts; }
};

/// @brief Atomics of one launch (on shared or global memory), counted per instruction: a warp's
/// execution of one atomic call, whatever its lanes' addresses (lanes that hit the same
/// word are serialised by the hardware, which these counts do not model).
struct AtomicCounts {
    std::uint64_t requests = 0;  ///< warp-level atomic instructions
    std::uint64_t accesses = 0;  ///< thread-level atomics: the active lanes of the requests
};

/// @brief One lane's part in one request.
struct LaneAccess {
    bool active = false;            ///< whether the lane took part
    std::uint64_t offset = 0;       ///< byte offset of its element in the block's shared memory
    unsigned size = 0;              ///< bytes of the element
};

/// @brief The shared-memory access site with the most bank conflicts in a launch.
struct WorstSharedSite {
    bool found = false;                 ///< false when the launch made no shared access
    std::string location;               ///< "chapters/02-tiled-gemm/tiled_gemm.cu:38"
    Direction direction = Direction::load;
    std::uint64_t requests = 0;         ///< its requests over the launch
    std::uint64_t wavefronts = 0;       ///< its wavefronts
    std::uint64_t ideal_wavefronts = 0; ///< without conflicts
    unsigned worst_degree = 0;          ///< wavefronts of its worst request (1: no conflict, 32: 32-way)
    unsigned phase_lanes = 32;          ///< lanes served together: 32, 16 for 8-byte, 8 for 16-byte elements
    LaneAccess sample[32];              ///< the lanes of the first request with worst_degree
    /// @brief Mean conflict degree: wavefronts per ideal wavefront.
    double degree() const { return ideal_wavefronts ? double(wavefronts) / double(ideal_wavefronts) : 0.0; }
};

/// @brief Everything counted for one kernel launch.
struct LaunchProfile {
    std::string kernel;                 ///< as launched, with template arguments: "tiled_gemm_kernel<TILE> [with int TILE = 16]"
    std::string kernel_text;            ///< as written at the launch: "tiled_gemm_kernel<TILE>"
    std::string launch_site;            ///< file:line of the launch
    unsigned grid[3] = {1, 1, 1};       ///< blocks
    unsigned block[3] = {1, 1, 1};      ///< threads per block
    std::uint64_t blocks = 0;           ///< blocks that ran
    std::size_t static_shared = 0;      ///< bytes of __shared__ variables per block
    std::size_t dynamic_shared = 0;     ///< bytes of dynamic shared memory per block
    /// @brief Global memory. The loads include the global side of cp.async copies, as
    /// Nsight Compute's l1tex__t_requests/sectors_pipe_lsu_mem_global_op_ld do.
    GlobalCounts global_load, global_store;
    /// @brief The global side of cp.async copies (LDGSTS) alone, also among global_load:
    /// l1tex__t_requests/sectors_pipe_lsu_mem_global_op_ldgsts. The shared memory they write
    /// is not counted among shared stores, as ncu does not.
    GlobalCounts global_ldgsts;
    std::uint64_t bulk_copies = 0;       ///< bulk and TMA copies issued (cp.async.bulk[.tensor])
    std::uint64_t bulk_shared_bytes = 0; ///< bytes they wrote to shared memory, out-of-bounds fill included
    std::uint64_t bulk_global_bytes = 0; ///< bytes they read from global memory
    SharedCounts shared_load, shared_store;  ///< shared memory
    AtomicCounts shared_atomics;        ///< atomics on the block's own shared memory
    AtomicCounts remote_atomics;        ///< atomics on another block's (distributed shared memory, clusters)
    AtomicCounts global_atomics;        ///< atomics on global memory (a cudaMalloc buffer)
    /// @brief Loads and stores through a cluster.map_shared_rank() pointer that reach
    /// another block's shared memory: ncu's l1tex__t_requests_pipe_lsu_mem_dshared_op_ld +
    /// _op_st. (Those that reach the block's own are shared loads, as on the GPU.)
    AtomicCounts remote_accesses;
    std::uint64_t barriers = 0;         ///< __syncthreads() executed, summed over the blocks
    /// @brief Bytes a block loads before it waits: of every span between two __syncthreads()
    /// of every block, the most bytes its global loads fetch: the distinct 32-byte sectors that
    /// its loads and cp.async copies touch (a sector several lanes or warps want is fetched
    /// once), plus the global bytes of its bulk and TMA copies. What one block has in flight
    /// if it issues all of them before it uses any (docs/profile.md, "Bytes in flight").
    std::uint64_t loads_before_wait = 0;
    /// @brief The warp-level global-load requests of that span (bulk copies count one each).
    std::uint64_t loads_before_wait_requests = 0;
    WorstSharedSite worst_shared;       ///< the shared site with the most conflicts
    bool faulted = false;               ///< the launch stopped with an error: the counts are partial
    /// @brief A pointer into global or shared memory was cast to another pointer type and
    /// then used as a raw pointer (kept in a `float4*` variable, say): what the kernel reads
    /// or writes through it is not counted, so the counts are a lower bound.
    bool uncounted_casts = false;
    /// @brief Threads per block.
    unsigned threads_per_block() const { return block[0] * block[1] * block[2]; }
    /// @brief __syncthreads() per block (every block reaches the same barriers unless it faults).
    double barriers_per_block() const { return blocks ? double(barriers) / double(blocks) : 0.0; }
};

/// @brief Start counting: every launch from now on is recorded until take().
void start();
/// @brief Stop counting and return the launches recorded since start(), in launch order.
std::vector<LaunchProfile> take();
/// @brief Whether counting is on.
bool enabled();

/// @brief Bank-rule wavefronts of one shared request: 32 banks of 4 bytes, the lanes
/// served in phases of @p phase_lanes (32 for elements of 4 bytes or fewer, 16 for 8-byte,
/// 8 for 16-byte ones); in each phase, lanes that touch the same 4-byte word share it
/// (broadcast), and the phase takes one wavefront per distinct word of its busiest bank.
/// @p ideal receives the wavefronts without conflicts (the phases that have an active lane).
unsigned shared_wavefronts(const LaneAccess (&lanes)[32], unsigned phase_lanes, unsigned* ideal = nullptr);

/// @cond EMU_INTERNALS
namespace detail {
/// @brief On while a launch is being recorded (emu/src/traffic.cpp sets it).
extern bool recording;
/// @brief Note that the running kernel made a raw pointer of a cast one that points at
/// @p address, when that lies in a cudaMalloc buffer or in the running block's shared
/// memory (a cast pointer to a local variable is no traffic): the counts are then partial.
void note_pointer_cast_to(const void* address);
/// @brief Record an access through a cast pointer: as global or shared by where @p address
/// lies, not at all when it lies in neither (a local variable).
void record_at(Direction direction, const void* address, std::size_t size, const void* site);
/// @brief Record one access by the running CUDA thread.
void record(Space space, Direction direction, const void* address, std::size_t size, const void* site);
/// @brief What a call counted per warp and site is: an atomic on the block's own shared
/// memory, another block's of its cluster, or global memory; or a load or store through a
/// pointer that cluster.map_shared_rank() gave (distributed shared memory).
enum class SiteKind : unsigned char { shared_atomic, remote_atomic, global_atomic, remote_access };
/// @brief Record a call of @p kind by the running CUDA thread, at @p file:@p line (an
/// atomic's own line; for remote_access, the line of the map_shared_rank() call). A warp's
/// k-th call of a site is one instruction.
void record_site_call(SiteKind kind, const char* file, int line);
/// @brief The launch hooks, called by emu/src/launch.cpp around the first run of a grid.
struct LaunchHooks;
}  // namespace detail

/// @brief One element of memory in a profiling build, whose accesses @p Recorder records:
/// reading it records a load, assigning to it a store, `+=` and friends, `++` and `--` both.
/// Its kinds are element_ref, cast_element and the elements of a pointer that
/// cluster.map_shared_rank() gave (cooperative_groups.h).
template <class T, class Recorder>
class counted_element {
public:
    using value_type = std::remove_cv_t<T>;  ///< the element's type, unqualified

    /// @brief The element at @p address, whose accesses @p recorder records.
    counted_element(T* address, Recorder recorder) : address_(address), recorder_(recorder) {}
    counted_element(const counted_element&) = default;  ///< copies the reference, not the value

    /// @brief Read the element.
    operator value_type() const {
        recorder_.record(Direction::load, address_, sizeof(T));
        return *address_;
    }
    /// @brief Write the element.
    counted_element& operator=(const value_type& value) {
        recorder_.record(Direction::store, address_, sizeof(T));
        *address_ = value;
        return *this;
    }
    /// @brief Copy another element's value (a load there, a store here), as `a[i] = b[j]` does.
    counted_element& operator=(const counted_element& other) { return *this = static_cast<value_type>(other); }
    /// @brief Copy an element of another array, as `a[i] = b[j]` does.
    template <class U, class R>
    counted_element& operator=(const counted_element<U, R>& other) {
        return *this = static_cast<value_type>(static_cast<typename counted_element<U, R>::value_type>(other));
    }
    /// @brief The element's address, unchecked and not counted from here on.
    T* operator&() const {
        recorder_.address_taken(address_);
        return address_;
    }

#define EMU_COMPOUND_(op)                                         \
    template <class V>                                            \
    counted_element& operator op##=(const V& value) {             \
        value_type v = *this;                                     \
        v op## = value;                                           \
        return *this = v;                                         \
    }
    EMU_COMPOUND_(+)
    EMU_COMPOUND_(-)
    EMU_COMPOUND_(*)
    EMU_COMPOUND_(/)
    EMU_COMPOUND_(%)
    EMU_COMPOUND_(&)
    EMU_COMPOUND_(|)
    EMU_COMPOUND_(^)
    EMU_COMPOUND_(<<)
    EMU_COMPOUND_(>>)
#undef EMU_COMPOUND_
    /// @brief ++element: a load and a store.
    counted_element& operator++() {
        value_type v = *this;
        return *this = ++v;
    }
    /// @brief --element: a load and a store.
    counted_element& operator--() {
        value_type v = *this;
        return *this = --v;
    }
    /// @brief element++: a load and a store; the old value.
    value_type operator++(int) {
        value_type v = *this;
        *this = v + 1;
        return v;
    }
    /// @brief element--: a load and a store; the old value.
    value_type operator--(int) {
        value_type v = *this;
        *this = v - 1;
        return v;
    }

private:
    T* address_;
    Recorder recorder_;
};

/// @cond EMU_INTERNALS
namespace detail {
/// @brief The recorder of an element of a checked array: its accesses go to space @p S,
/// from the code at @p site.
template <Space S>
struct in_space {
    const void* site;
    void record(Direction direction, const void* address, std::size_t size) const {
        if (__builtin_expect(recording, 0)) detail::record(S, direction, address, size, site);
    }
    void address_taken(const void*) const {}
};
/// @brief The recorder of an element reached through a cast pointer (cast_pointer): whether
/// its accesses go to global or shared memory is found from its address when it is used;
/// taking its address leaves what is made of it uncounted.
struct where_it_lies {
    const void* site;
    void record(Direction direction, const void* address, std::size_t size) const {
        if (__builtin_expect(recording, 0)) record_at(direction, address, size, site);
    }
    void address_taken(const void* address) const { note_pointer_cast_to(address); }
};
}  // namespace detail
/// @endcond

/// @brief One element of a checked array in space @p S, in a profiling build.
template <class T, Space S>
using element_ref = counted_element<T, detail::in_space<S>>;
/// @brief One element reached through a cast pointer (cast_pointer): like element_ref,
/// but whether it is global or shared memory is found from its address when it is used.
template <class T>
using cast_element = counted_element<T, detail::where_it_lies>;

/// @brief What emu::pointer_cast gives in a profiling build: a pointer of type `T*` whose
/// accesses (`*p`, `p[i]`) are counted, as one access of sizeof(T) bytes each. Converted to
/// a raw `T*` (stored in a `T*` variable, passed on), it is no longer followed, and the
/// launch is marked uncounted_casts.
template <class T>
class cast_pointer {
public:
    /// @brief What `*p` and `p[i]` give: through a pointer to const, the element's value
    /// (its load counted), so that `p[i].x` works as on the GPU; else a cast_element, which
    /// counts a load or a store by how it is used.
    using element = std::conditional_t<std::is_const<T>::value, std::remove_cv_t<T>, cast_element<T>>;

    /// @brief Point at @p address.
    explicit cast_pointer(T* address) : address_(address) {}
    /// @brief The element pointed to.
    __attribute__((noinline)) element operator*() const { return at(address_, __builtin_return_address(0)); }
    /// @brief The element @p index places further.
    template <class I, std::enable_if_t<std::is_integral<I>::value || std::is_enum<I>::value, int> = 0>
    __attribute__((noinline)) element operator[](I index) const {
        return at(address_ + index, __builtin_return_address(0));
    }
    /// @brief The pointer @p offset elements further, still counted.
    template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
    cast_pointer operator+(I offset) const { return cast_pointer(address_ + offset); }
    /// @brief The pointer @p offset elements back, still counted.
    template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
    cast_pointer operator-(I offset) const { return cast_pointer(address_ - offset); }
    /// @brief Member access: not counted.
    T* operator->() const { return raw(); }
    /// @brief The raw pointer, no longer counted.
    operator T*() const { return raw(); }
    /// @brief The raw pointer, for a caller that goes on checking and counting the accesses
    /// made through what it makes of it (cluster.map_shared_rank()'s remote_ptr): the launch
    /// is not marked uncounted.
    T* passed_on() const { return address_; }
    /// @brief Casts to other pointer types: raw, no longer counted.
    template <class U>
    explicit operator U*() const {
        return (U*)raw();
    }

private:
    static element at(T* address, const void* site) {
        if constexpr (std::is_const<T>::value) {
            if (__builtin_expect(detail::recording, 0)) detail::record_at(Direction::load, address, sizeof(T), site);
            return *address;
        } else {
            return cast_element<T>(address, detail::where_it_lies{site});
        }
    }
    T* raw() const {
        detail::note_pointer_cast_to(address_);
        return address_;
    }
    T* address_;
};

/// @brief What an access to element type T in space S gives: `T&`, or in a profiling
/// build an element_ref. Objects that cannot be copied (a `cuda::barrier` in a __shared__
/// array) are synchronisation, not data: they stay `T&`, so their members can be called.
#ifdef EMU_PROFILE
template <class T, Space S>
using element_t = std::conditional_t<std::is_copy_constructible<T>::value, element_ref<T, S>, T&>;
#else
template <class T, Space S>
using element_t = T&;
#endif

#ifdef EMU_PROFILE
/// @brief The element_t of @p address: a counted element_ref, or the object itself.
template <Space S, class T>
inline element_t<T, S> make_element(T* address, const void* site) {
    if constexpr (std::is_copy_constructible<T>::value) {
        return element_ref<T, S>(address, detail::in_space<S>{site});
    } else {
        (void)site;
        return *address;
    }
}
#endif
/// @endcond

}  // namespace traffic
}  // namespace emu

/// @cond EMU_INTERNALS
// The access site is the address the element access returns to: each access expression in
// a kernel is its own call of operator[] in a profiling build (hence noinline), and
// emu/src/traffic.cpp turns the address into file:line with addr2line.
#ifdef EMU_PROFILE
#define EMU_ELEMENT_ACCESS_ __attribute__((noinline))
#define EMU_ELEMENT_(space, address) \
    ::emu::traffic::make_element<space>((address), __builtin_return_address(0))
#else
#define EMU_ELEMENT_ACCESS_
#define EMU_ELEMENT_(space, address) (*(address))
#endif
/// @endcond
