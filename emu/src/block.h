// The state of a grid and of the block each worker thread runs, shared by the files that
// run grids (block_runner.cpp, worker_pool.cpp, shared_memory.cpp, kernel_labels.cpp,
// diagnostics.cpp); not part of the backend's public headers.
#pragma once

#include "fiber.h"
#include "internal.h"

#include <atomic>
#include <climits>
#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace emu {
namespace detail {

/// @brief Where a CUDA thread stands between two switches of the scheduler.
enum class Status { Ready, Running, AtBarrier, AtWarp, AtAsync, Exited };  // AtAsync: a barrier or pipeline wait

/// @brief One CUDA thread of the running block.
struct ThreadState {
    uint3 index{0, 0, 0};
    Status status = Status::Ready;
    const char* file = nullptr;  ///< the barrier or warp primitive it waits at
    int line = 0;
    int predicate = 0;           ///< for __syncthreads_count
    // At a warp primitive: which one, and what the lane supplied (see warp.cpp).
    WarpOp warp_op = WarpOp::syncwarp;
    unsigned warp_mask = 0;
    unsigned long long warp_value = 0;  ///< the bits of the value or predicate it supplies
    int warp_argument = 0;              ///< source lane, delta or lane mask of a shuffle
    int warp_width = 32;
    unsigned long long warp_result = 0; ///< what the primitive returns to it
    CrashRecovery* recovery = nullptr;  ///< where a crash of this thread goes back to (fiber.h)
    Fiber fiber;
};

/// @brief A `__shared__` variable of the running block, for messages and look-ups.
struct SharedVariable {
    const void* key;
    char* address;
    std::size_t bytes;
    const char* name;
    const std::size_t* extents;
    std::size_t rank;
    const char* type_name;
    const char* file;
    int line;
};

struct GridState;
struct AsyncState;

/// @brief The block a worker thread is running: its threads, its shared memory, its fault.
struct BlockRun {
    GridState* grid = nullptr;
    const GridRun* run = nullptr;
    unsigned long long linear = 0;
    std::size_t thread_count = 0;  ///< threads in the block
    std::vector<ThreadState> threads = std::vector<ThreadState>(kMaxThreadsPerBlock);
    ThreadState* current = nullptr;
    // The shared-memory arena: dynamic shared memory first, then the __shared__ variables.
    // It starts on a 1024-byte boundary, as a GPU's shared memory window does, so that
    // alignas(128) and the swizzled layouts of the Tensor Memory Accelerator work.
    struct ArenaFree {
        void operator()(char* p) const { ::operator delete[](p, std::align_val_t(1024)); }
    };
    std::unique_ptr<char[], ArenaFree> arena;
    std::size_t arena_size = 0;
    std::size_t arena_used = 0;
    std::size_t static_bytes = 0;
    char* dynamic_base = nullptr;
    std::size_t dynamic_bytes = 0;
    std::vector<SharedVariable> variables;
    int barrier_count = 0;
    bool faulted = false;
    KernelFault fault;
    CrashRecovery crash;  ///< what the crash was, when the fault is one
    bool used_shared = false;
    bool used_barrier = false;
    bool order_sensitive = false;
    /// Asynchronous copies, barriers and pipelines of the block (async_copy.cpp); made
    /// the first time a block of this worker uses them.
    std::unique_ptr<AsyncState, void (*)(AsyncState*)> async{nullptr, nullptr};
};

/// @brief What a worker thread keeps from block to block: the fibers' stacks and its block.
struct Worker {
    // What it runs, for the time limit's last resort message (time_limit.cpp): block
    // linear index + 1 (0: none) and the thread's index in it.
    std::atomic<unsigned long long> running_block{0};
    std::atomic<std::size_t> running_thread{0};
    std::vector<std::unique_ptr<Stack>> stacks;
    std::vector<const Stack*> stack_list;
    CrashContext crash;
    BlockRun block;
};

/// @brief One grid run, shared by the workers.
struct GridState {
    explicit GridState(const GridRun& r)
        : run(&r),
          total(static_cast<unsigned long long>(r.request->grid.x) * r.request->grid.y * r.request->grid.z),
          names(r.request->pointer_count) {
        for (auto& name : names) name.store(nullptr);
    }
    const GridRun* run;
    unsigned long long total;
    std::atomic<unsigned long long> next{0};
    std::atomic<unsigned long long> finished{0};  ///< blocks run to their end without a fault
    // Blocks are taken in increasing order; after a fault in block f, blocks after f are
    // skipped and those before it still finish, so the reported fault is always the one
    // of the first faulting block, however the workers were scheduled.
    std::atomic<unsigned long long> first_fault{ULLONG_MAX};
    std::mutex mutex;
    KernelFault fault;
    std::atomic<bool> used_shared{false}, used_barrier{false}, order_sensitive{false};
    std::atomic<std::size_t> static_shared{0};
    std::vector<std::atomic<const char*>> names;
    std::atomic<const char*> signature{nullptr};  ///< the kernel's __PRETTY_FUNCTION__
    bool watch_seen = false;
    uint3 watch_block{0, 0, 0}, watch_thread{0, 0, 0};  ///< the last thread that touched it
    /// The first thread that touched it, and whether another touched it after that one.
    uint3 watch_first_block{0, 0, 0}, watch_first_thread{0, 0, 0};
    bool watch_several = false;
};

/// @brief The block the calling worker thread is running; null outside a kernel.
extern thread_local BlockRun* current_block;

/// @brief The running block, or stop the program: @p what was used outside a kernel.
BlockRun& block_or_die(const char* what);

// ---- block_runner.cpp ---------------------------------------------------------------------
/// @brief Run blocks of @p grid on the calling worker thread until none is left.
void work(GridState& grid);

// ---- worker_pool.cpp ------------------------------------------------------------------------
/// @brief Run work(grid) on up to @p workers worker threads; return when all are done.
void run_on_workers(GridState& grid, unsigned workers);

// ---- shared_memory.cpp ----------------------------------------------------------------------
/// @brief Give the block @p b its arena, once per worker thread.
void allocate_shared_arena(BlockRun& b);
/// @brief Start the shared memory of a new block: the launch's dynamic bytes, poisoned.
void reset_shared_memory(BlockRun& b, std::size_t dynamic_bytes);

// ---- async_copy.cpp -------------------------------------------------------------------------
/// @brief A new block starts: no copies in flight, no barriers.
void async_begin_block(BlockRun& b);
/// @brief The block ended (or faulted): forget what is still in flight.
void async_end_block(BlockRun& b);
/// @brief Every thread of @p b passed a __syncthreads(): what was initialised before it is
/// visible to all.
void async_after_syncthreads(BlockRun& b);
/// @brief The running thread reached a barrier, a warp primitive or its end: report an
/// access it made to bytes a copy had yet to write.
void async_checkpoint(BlockRun& b);
/// @brief When no thread can run: threads waiting at a barrier or pipeline that can never
/// complete are a hang on a GPU; record the fault in @p b and return true.
bool async_stuck(BlockRun& b);
/// @brief "__syncthreads()", "__shfl_sync", or the async call a waiting thread is at.
const char* waiting_call(const ThreadState& t);

// ---- warp.cpp -------------------------------------------------------------------------------
/// @brief What resolve_warps() did.
enum class WarpProgress { nobody_waiting, released, stuck };
/// @brief When no thread of @p b can run: complete every warp primitive whose lanes have all
/// arrived (they become ready again). When lanes wait at warp primitives and none can
/// complete, record the fault in @p b and return stuck.
WarpProgress resolve_warps(BlockRun& b);
/// @brief "__shfl_down_sync" for WarpOp::shfl_down.
const char* warp_op_name(WarpOp op);

// ---- time_limit.cpp -------------------------------------------------------------------------
/// @brief Let the time limit's last resort name what @p w runs.
void register_worker(Worker& w);
/// @brief The time limit of one grid run, from construction to destruction: past it,
/// time_is_up is set; much later, with the grid still running, the program exits with a message.
class TimeLimit {
public:
    explicit TimeLimit(const GridRun& run);
    ~TimeLimit();
    TimeLimit(const TimeLimit&) = delete;
    TimeLimit& operator=(const TimeLimit&) = delete;
};

// ---- diagnostics.cpp ------------------------------------------------------------------------
/// @brief The message for block @p b, whose first @p count threads cannot all go on
/// together: some wait at different barriers, or some wait while others have finished.
std::string divergence_message(const BlockRun& b, std::size_t count);
/// @brief The message for warp @p warp of @p b, whose lane @p lane waits at a warp
/// primitive that can never complete: some lane its mask names is elsewhere, has exited,
/// or does not exist.
std::string stuck_warp_message(const BlockRun& b, unsigned warp, unsigned lane);
/// @brief "lane 3", "lanes 0-15", "lanes 0, 2, 4-7": the lanes set in @p lanes.
std::string lanes_text(unsigned lanes);
/// @brief The message for block @p b stopped at the time limit of @p seconds, its running
/// thread at @p file:@p line (null: a checked memory access whose place is unknown).
std::string time_limit_message(const BlockRun& b, double seconds, const char* file, int line);

}  // namespace detail
}  // namespace emu
