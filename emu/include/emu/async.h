/// @file async.h
/// @brief Asynchronous copies into shared memory on the CPU backend: the runtime behind
/// <cuda/pipeline>, <cuda/barrier> and <cuda_pipeline.h> (emu/src/async_copy.cpp).
///
/// A copy reads its source when it is issued but writes its destination only when the
/// wait that completes it returns, as a GPU may: until then the destination keeps its old
/// bytes, and a checked access to them stops the kernel with the lines of the access and
/// of the copy. Three ways complete copies, as on a GPU:
///  - the thread's own commit groups (cp.async: `__pipeline_commit()`,
///    `__pipeline_wait_prior(n)`, and cuda::pipeline<cuda::thread_scope_thread>);
///  - the phases of a block-scope pipeline's stages (cuda::pipeline_shared_state);
///  - the phases of a cuda::barrier (an mbarrier), with their transaction bytes (TMA,
///    `cuda::memcpy_async(..., barrier)`).
#pragma once

#include <cstddef>
#include <cstdint>

struct CUtensorMap_st;

namespace emu {
/// @cond EMU_INTERNALS
namespace detail {
/// @brief Non-zero while the running block has copies in flight or an access to check:
/// checked shared accesses then call async_shared_access().
extern __thread int async_watch;
/// @brief A checked access to @p bytes bytes of shared memory at @p address, written at
/// @p file:@p line: stops the kernel when they wait for an asynchronous copy.
void async_shared_access(const void* address, std::size_t bytes, const char* file, int line);
}  // namespace detail
/// @endcond

namespace async {

/// @brief Which mechanism a copy of the pipeline and barrier APIs uses, as libcu++ picks it.
enum class Mechanism : unsigned char {
    cp_async,  ///< cp.async: chunks of 4, 8 or 16 bytes, each thread of the group its share
    bulk,      ///< cp.async.bulk: one copy by the group's first thread, multiples of 16 bytes
    tensor,    ///< cp.async.bulk.tensor (TMA): a box of a tensor map
};

/// @brief An arrival token of a cuda::barrier: the phase it arrived at.
struct Token {
    const void* barrier = nullptr;  ///< the barrier arrived at (null: default-constructed)
    std::uint64_t phase = 0;        ///< the phase the arrival belongs to
};

/// @brief What a barrier is, for messages.
enum class BarrierRole : unsigned char { user, pipeline_produced, pipeline_consumed };

// ---- cp.async commit groups of the calling thread -----------------------------------------
/// @brief __pipeline_memcpy_async(): one cp.async of @p size bytes (4, 8 or 16), the last
/// @p zfill of them zeros, into the thread's open group.
void primitive_copy(void* dst, const void* src, std::size_t size, std::size_t zfill, const char* file, int line);
/// @brief cuda::memcpy_async(group, ..., pipeline<thread_scope_thread>): the group's thread
/// @p rank of @p size issues its cp.async chunks (of @p align bytes, up to 16) into its
/// open group; below 4 bytes of alignment the copy is synchronous, as libcu++ makes it.
void group_copy(void* dst, const void* src, std::size_t bytes, std::size_t align, unsigned rank, unsigned size,
                const char* api, const char* file, int line);
/// @brief Close the thread's open group (cp.async.commit_group).
void group_commit(const char* api, const char* file, int line);
/// @brief Complete all but the @p prior most recent committed groups (cp.async.wait_group).
/// With @p strict, a wait that completes nothing while copies are in flight is reported.
void group_wait_prior(std::size_t prior, bool strict, const char* api, const char* file, int line);
/// @brief Report consumer_wait() on a thread-scope pipeline with no committed stage to wait for.
[[noreturn]] void nothing_committed(const char* api, const char* file, int line);

// ---- cuda::barrier (mbarrier) -------------------------------------------------------------
/// @brief init(&bar, count): the barrier at @p bar expects @p count arrivals per phase.
void barrier_init(void* bar, std::ptrdiff_t count, BarrierRole role, unsigned stage, const char* file, int line);
/// @brief Add @p tx expected transaction bytes to the current phase, then arrive @p update
/// times (update 0: only expect). Returns the token of the arrival.
Token barrier_arrive(void* bar, std::ptrdiff_t update, std::ptrdiff_t tx, const char* api, const char* file, int line);
/// @brief Arrive and remove one expected arrival from later phases (arrive_and_drop()).
void barrier_drop(void* bar, const char* file, int line);
/// @brief Block until the phase of @p token has completed.
void barrier_wait(void* bar, Token token, const char* api, const char* file, int line);
/// @brief Block until the phase of parity @p parity has completed (mbarrier.try_wait.parity).
void barrier_wait_parity(void* bar, bool parity, const char* api, const char* file, int line);
/// @brief cuda::memcpy_async(group, dst, src, bytes, bar): the group's thread @p rank of
/// @p size issues its share; @p align is the alignment libcu++ derives (the type's and
/// aligned_size_t's); the copies complete with the barrier's current phase.
void barrier_copy(void* dst, const void* src, std::size_t bytes, std::size_t align, unsigned rank, unsigned size,
                  void* bar, const char* api, const char* file, int line);
/// @brief A TMA load of the box at @p coords (innermost first, @p rank of them) of
/// @p map into @p dst, its bytes completing transactions of @p bar's current phase.
void tensor_copy(void* dst, const CUtensorMap_st* map, const int* coords, unsigned rank, void* bar, const char* api,
                 const char* file, int line);
/// @brief cp.async.bulk of @p bytes bytes into @p dst, its bytes completing transactions
/// of @p bar's current phase (the caller expects them with barrier_arrive_tx()).
void bulk_copy(void* dst, const void* src, std::size_t bytes, void* bar, const char* api, const char* file, int line);

// ---- block-scope cuda::pipeline -------------------------------------------------------------
/// @brief Copy for a block-scope pipeline: into the thread's uncommitted stage copies. The
/// thread must hold an acquired stage (@p acquired), else the refill is reported.
void pipeline_copy(void* dst, const void* src, std::size_t bytes, std::size_t align, unsigned rank, unsigned size,
                   bool acquired, const void* state, const char* api, const char* file, int line);
/// @brief producer_commit(): the thread's stage copies complete with @p produced's current
/// phase, then the thread arrives there.
void pipeline_commit(void* produced, const char* file, int line);
/// @brief consumer_wait() of a pipeline whose threads are all producers and consumers,
/// when this thread has waited for as many stages as it committed (a hang on a GPU).
[[noreturn]] void pipeline_wait_uncommitted(unsigned waits, unsigned commits, const char* file, int line);
/// @brief Yield to the block's other threads (after consumer_release()), so that another
/// thread may refill the stage before this one goes on, as on a GPU.
void yield(const char* file, int line);
/// @brief Called by make_pipeline(): the thread's rank and the group's size, for the
/// copies a group makes.
unsigned block_thread_rank();
/// @brief Threads in the running block.
unsigned block_size();
/// @brief __syncthreads() at @p file:@p line (cooperative_groups' sync()).
void block_sync(const char* file, int line);

}  // namespace async
}  // namespace emu
