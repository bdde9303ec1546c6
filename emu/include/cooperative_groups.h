/// @file cooperative_groups.h
/// @brief The part of CUDA's Cooperative Groups the CPU backend runs: the thread block
/// (this_thread_block()), the thread block cluster (this_cluster()) and the grid's ranks
/// (this_grid(), without its sync()), with CUDA's
/// names and types, so that `namespace cg = cooperative_groups;` code compiles unchanged.
///
/// With BACKEND=emu this header takes the place of the CUDA Toolkit's. Clusters run as
/// described in docs/cpu-backend.md (emu/src/cluster.cpp): the blocks of a cluster run
/// together, cluster.sync() is a barrier across all their threads, and
/// map_shared_rank() gives a pointer into another block's shared memory whose accesses are
/// checked (used before the first cluster.sync(), after its block exited, out of bounds).
/// In a launch without clusters every block is a cluster of one, as on a GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

// cooperative_groups::thread_block and this_thread_block() (shared with the asynchronous
// copies of chapter 8).
#include "emu/thread_block.h"
#include <gpu_model/traffic.h>

/// @cond EMU_INTERNALS
namespace emu {
namespace detail {
void cluster_sync(const char* file, int line);
unsigned cluster_block_rank();
dim3 cluster_dims();
void* map_shared_rank(const void* address, unsigned rank, const char* file, int line);
void check_remote_access(const void* address, std::size_t bytes, const char* file, int line);
/// Record, in a profiling build, a load (or a store) of @p bytes at @p address through the
/// pointer map_shared_rank() gave at @p file:@p line: a DSMEM access when it reaches another
/// block, a shared one when it reaches the block's own memory (as on the GPU).
void record_remote_access(const void* address, std::size_t bytes, bool store, const char* file, int line);

/// @brief The recorder of an element of a remote_ptr (traffic::counted_element), made by
/// map_shared_rank() at @p file:@p line: its loads and stores are recorded by
/// record_remote_access(), and its address (for an atomic, which records itself) nothing.
struct through_map_shared_rank {
    const char* file;
    int line;
    void record(traffic::Direction direction, const void* address, std::size_t size) const {
        record_remote_access(address, size, direction == traffic::Direction::store, file, line);
    }
    void address_taken(const void*) const {}
};
/// @brief In a profiling build, what an element of a remote_ptr gives. Elsewhere remote_ptr
/// gives a plain T&.
template <class T>
using remote_element = traffic::counted_element<T, through_map_shared_rank>;
}  // namespace detail

/// @brief What cluster.map_shared_rank() returns: a pointer into the shared memory of a
/// block of the cluster, which behaves like `T*` and checks each access made through it
/// (before the first cluster.sync(), after the owner exited, out of bounds), naming the
/// line of the map_shared_rank() call. The translator declares `T* p = ...map_shared_rank(...);`
/// as `auto p = ...` so that p keeps its checks; converted to `T*` it is a raw pointer,
/// whose atomics are still checked.
template <class T>
class remote_ptr : public detail::pointer_arithmetic<remote_ptr<T>> {
public:
    /// @brief @p pointer, as map_shared_rank() at @p file:@p line gave it.
    remote_ptr(T* pointer, const char* file, int line) : pointer_(pointer), file_(file), line_(line) {}
    /// @brief The raw pointer: accesses through it are not checked (atomics are).
    operator T*() const { return pointer_; }
#ifdef EMU_PROFILE
    /// @brief Element @p index, after checking the access; its loads and stores are counted.
    template <class I, detail::if_index<I> = 0>
    detail::remote_element<T> operator[](I index) const {
        return detail::remote_element<T>(checked(pointer_ + index), {file_, line_});
    }
    /// @brief The element pointed to, after checking the access; counted.
    detail::remote_element<T> operator*() const { return detail::remote_element<T>(checked(pointer_), {file_, line_}); }
#else
    /// @brief Element @p index, after checking the access.
    template <class I, detail::if_index<I> = 0>
    T& operator[](I index) const {
        return *checked(pointer_ + index);
    }
    /// @brief The element pointed to, after checking the access.
    T& operator*() const { return *checked(pointer_); }
#endif
    /// @brief Member access, after checking the access.
    T* operator->() const { return checked(pointer_); }

private:
    friend class detail::pointer_arithmetic<remote_ptr>;
    T* checked(T* at) const {
        detail::check_remote_access(at, sizeof(T), file_, line_);
        return at;
    }
    T* pointer_;
    const char* file_;
    int line_;
};
}  // namespace emu
/// @endcond

/// @cond EMU_INTERNALS
// Atomics through a map_shared_rank() pointer: the atomic on the raw pointer, which checks
// it and names the atomic's own line.
#define EMU_REMOTE_ATOMIC_(name)                                                                               \
    template <class T>                                                                                         \
    inline T name(::emu::remote_ptr<T> address, typename ::emu::detail::Same<T>::type value,                   \
                  const char* file = __builtin_FILE(), int line = __builtin_LINE()) {                          \
        return name(static_cast<T*>(address), value, file, line);                                              \
    }
EMU_REMOTE_ATOMIC_(atomicAdd)
EMU_REMOTE_ATOMIC_(atomicSub)
EMU_REMOTE_ATOMIC_(atomicAnd)
EMU_REMOTE_ATOMIC_(atomicOr)
EMU_REMOTE_ATOMIC_(atomicXor)
EMU_REMOTE_ATOMIC_(atomicExch)
EMU_REMOTE_ATOMIC_(atomicMax)
EMU_REMOTE_ATOMIC_(atomicMin)
#undef EMU_REMOTE_ATOMIC_
template <class T>
inline T atomicCAS(::emu::remote_ptr<T> address, typename ::emu::detail::Same<T>::type compare,
                   typename ::emu::detail::Same<T>::type value, const char* file = __builtin_FILE(),
                   int line = __builtin_LINE()) {
    return atomicCAS(static_cast<T*>(address), compare, value, file, line);
}
inline unsigned int atomicInc(::emu::remote_ptr<unsigned int> address, unsigned int value,
                              const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return atomicInc(static_cast<unsigned int*>(address), value, file, line);
}
inline unsigned int atomicDec(::emu::remote_ptr<unsigned int> address, unsigned int value,
                              const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return atomicDec(static_cast<unsigned int*>(address), value, file, line);
}
/// @endcond

namespace cooperative_groups {

/// @brief The thread block cluster of the running block (compute capability 9.0).
class cluster_group {
public:
    /// @brief Barrier across every thread of every block of the cluster; it also makes
    /// each block's shared-memory writes before it visible to the others after it.
    static void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        ::emu::detail::cluster_sync(file, line);
    }
    /// @brief The block's rank in its cluster, 0 to num_blocks() - 1 (x fastest).
    static unsigned int block_rank() { return ::emu::detail::cluster_block_rank(); }
    /// @brief Blocks in the cluster.
    static unsigned int num_blocks() {
        const dim3 d = ::emu::detail::cluster_dims();
        return d.x * d.y * d.z;
    }
    /// @brief The cluster's shape in blocks.
    static dim3 dim_blocks() { return ::emu::detail::cluster_dims(); }
    /// @brief The block's coordinates in its cluster.
    static dim3 block_index() {
        const dim3 d = ::emu::detail::cluster_dims();
        return dim3(blockIdx.x % d.x, blockIdx.y % d.y, blockIdx.z % d.z);
    }
    /// @brief Threads in the cluster.
    static unsigned int num_threads() { return num_blocks() * thread_block::size(); }
    /// @brief The same: threads in the cluster.
    static unsigned int size() { return num_threads(); }
    /// @brief The calling thread's linear index in the cluster.
    static unsigned int thread_rank() { return block_rank() * thread_block::size() + thread_block::thread_rank(); }
    /// @brief The calling thread's coordinates in the cluster, in threads.
    static dim3 thread_index() {
        const dim3 b = block_index();
        return dim3(b.x * blockDim.x + threadIdx.x, b.y * blockDim.y + threadIdx.y, b.z * blockDim.z + threadIdx.z);
    }
    /// @brief The cluster's shape in threads.
    static dim3 dim_threads() {
        const dim3 d = ::emu::detail::cluster_dims();
        return dim3(d.x * blockDim.x, d.y * blockDim.y, d.z * blockDim.z);
    }
    /// @brief The address of the same shared-memory variable, @p addr, in the block of
    /// rank @p rank of the cluster (distributed shared memory). A rank outside the cluster
    /// stops the kernel with a message.
    template <class T>
    static ::emu::remote_ptr<T> map_shared_rank(T* addr, int rank, const char* file = __builtin_FILE(),
                                                int line = __builtin_LINE()) {
        return ::emu::remote_ptr<T>(
            static_cast<T*>(::emu::detail::map_shared_rank(addr, static_cast<unsigned>(rank), file, line)), file, line);
    }
    /// @brief The same for a pointer the CPU backend checks (what `auto p =
    /// reinterpret_cast<U*>(&name[i])` gives, a U* on a GPU): any Pointer<T> that converts
    /// to T*.
    template <template <class> class Pointer, class T>
    static ::emu::remote_ptr<T> map_shared_rank(const Pointer<T>& addr, int rank, const char* file = __builtin_FILE(),
                                                int line = __builtin_LINE()) {
        return map_shared_rank(static_cast<T*>(addr), rank, file, line);
    }
    /// @brief The same in a profiling build, where such a pointer counts its accesses: the
    /// remote_ptr goes on counting them (as distributed shared memory).
    template <class T>
    static ::emu::remote_ptr<T> map_shared_rank(const ::emu::traffic::cast_pointer<T>& addr, int rank,
                                                const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        return map_shared_rank(addr.passed_on(), rank, file, line);
    }
    /// @brief The same for `extern __shared__ T name[]`, which decays to T* on a GPU.
    template <class T>
    static ::emu::remote_ptr<T> map_shared_rank(const ::emu::dynamic_shared_array<T>& addr, int rank,
                                                const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        return map_shared_rank(static_cast<T*>(addr), rank, file, line);
    }
    /// @brief The same for `extern __shared__ T name[]` declared outside a function.
    template <class T>
    static ::emu::remote_ptr<T> map_shared_rank(const ::emu::dynamic_shared_global<T>& addr, int rank,
                                                const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        return map_shared_rank(static_cast<T*>(addr), rank, file, line);
    }
    /// @brief The same for a `__shared__` array, which decays to a pointer to its first row.
    template <class T, std::size_t N, std::size_t... Rest>
    static ::emu::remote_ptr<typename ::emu::shared_array<T, N, Rest...>::raw_row> map_shared_rank(
        ::emu::shared_array<T, N, Rest...>& addr, int rank, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        using Row = typename ::emu::shared_array<T, N, Rest...>::raw_row;
        return map_shared_rank(static_cast<Row*>(addr), rank, file, line);
    }
};

/// @brief The running block's cluster.
inline cluster_group this_cluster() { return cluster_group(); }

/// @brief The grid, for its threads' and blocks' ranks. Its sync() needs a cooperative
/// launch, which the CPU backend does not have: it is left out (a compile error).
class grid_group {
public:
    /// @brief Threads in the grid.
    static unsigned long long num_threads() { return num_blocks() * thread_block::size(); }
    /// @brief The same: threads in the grid.
    static unsigned long long size() { return num_threads(); }
    /// @brief The calling thread's linear index in the grid: block_rank() * block size + its rank in the block.
    static unsigned long long thread_rank() { return block_rank() * thread_block::size() + thread_block::thread_rank(); }
    /// @brief Blocks in the grid.
    static unsigned long long num_blocks() {
        return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z;
    }
    /// @brief The block's linear index in the grid (x fastest).
    static unsigned long long block_rank() {
        return blockIdx.x + static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
    }
    /// @brief gridDim.
    static dim3 dim_blocks() { return gridDim; }
    /// @brief blockIdx.
    static dim3 block_index() { return dim3(blockIdx); }
    /// @brief Always true here: the grid is known.
    static bool is_valid() { return true; }
};

/// @brief The running grid.
inline grid_group this_grid() { return grid_group(); }

/// @brief group.sync(), as a free function.
inline void sync(const cluster_group& group, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    (void)group;
    cluster_group::sync(file, line);
}

}  // namespace cooperative_groups
