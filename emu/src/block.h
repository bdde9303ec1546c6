// The state of a grid and of the block each worker thread runs, shared by the files that
// run grids (block_runner.cpp, worker_pool.cpp, shared_memory.cpp, kernel_labels.cpp,
// diagnostics.cpp); not part of the backend's public headers.
#pragma once

#include "fiber.h"
#include "internal.h"

#include <atomic>
#include <climits>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace emu {
namespace detail {

/// @brief Where a CUDA thread stands between two switches of the scheduler. AtAsync: at a
/// barrier or pipeline wait (async_copy.cpp); AtClusterBarrier: at cluster.sync() (cluster.cpp).
enum class Status { Ready, Running, AtBarrier, AtWarp, AtAsync, AtClusterBarrier, Exited };

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
struct WgmmaState;
struct BlockRun;

/// @brief The blocks of one thread block cluster, run together on one worker thread
/// (emu/src/cluster.cpp).
struct ClusterRun {
    std::vector<BlockRun*> blocks;  ///< by rank in the cluster
    dim3 dims;                      ///< blocks per cluster
    uint3 index{0, 0, 0};           ///< the cluster's coordinates in the grid of clusters
    unsigned epoch = 0;             ///< cluster barriers all threads have passed together
};

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
    /// The warpgroup MMAs in flight, per thread (wgmma.cpp); made at the block's first wgmma.
    std::unique_ptr<WgmmaState, void (*)(WgmmaState*)> wgmma{nullptr, nullptr};
    uint3 index{0, 0, 0};           ///< blockIdx
    std::size_t exited_threads = 0; ///< threads that have returned from the kernel
    ClusterRun* cluster = nullptr;  ///< its cluster, in a cluster launch
    unsigned cluster_rank = 0;      ///< its rank in the cluster
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
    std::vector<std::unique_ptr<BlockRun>> cluster_blocks;  ///< for cluster launches
};

/// @brief One grid run, shared by the workers.
struct GridState : WatchedTouches {
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
};

/// @brief The block the calling worker thread is running; null outside a kernel.
extern thread_local BlockRun* current_block;

/// @brief The running block, or stop the program: @p what was used outside a kernel.
BlockRun& block_or_die(const char* what);

// ---- block_runner.cpp ---------------------------------------------------------------------
/// @brief Run blocks of @p grid on the calling worker thread until none is left.
void work(GridState& grid);
/// @brief The calling worker thread's state, made on first use.
Worker& this_worker();
/// @brief Give @p w at least @p count fiber stacks.
void ensure_stacks(Worker& w, std::size_t count);
/// @brief The body of every CUDA thread's fiber; @p argument is its BlockRun.
void thread_main(void* argument);
/// @brief The order in which @p count threads (or blocks) run in round @p round of block
/// (or cluster) @p unit, under @p schedule.
void order_threads(const Schedule& schedule, std::size_t count, unsigned long long unit, unsigned round,
                   std::vector<unsigned>& order);
/// @brief Prepare @p b to run block @p linear of @p grid: its threads, its shared memory.
void start_block(GridState& grid, BlockRun& b, unsigned long long linear);
/// @brief Fold what block @p b did into @p grid, and its fault if it has one.
void finish_block(GridState& grid, BlockRun& b);
/// @brief The message for the running thread of the current block, which crashed as
/// @p crash says.
std::string crash_message(const CrashRecovery& crash);
/// @brief The running thread of @p b stops at a barrier of kind @p barrier (AtBarrier,
/// AtClusterBarrier), called at @p file:@p line, until the block's scheduler releases it.
void wait_at_barrier(BlockRun& b, Status barrier, const char* file, int line);
/// @brief Run thread @p i of block @p b on worker @p w until it yields (a barrier, a wait,
/// its end) or crashes; @p first: its fiber starts on @p stack. A crash marks @p b faulted.
void run_thread_slice(Worker& w, BlockRun& b, unsigned i, bool first, Stack& stack);

// ---- cluster.cpp ----------------------------------------------------------------------------
/// @brief Blocks per cluster of the running grid (1 when it was not launched with clusters).
unsigned long long cluster_size(const GridRun& run);
/// @brief Run cluster @p linear of @p grid on the calling worker thread.
void run_cluster(GridState& grid, unsigned long long linear);
/// @brief During a launch's probe (cluster_dims_of()), note the kernel's cluster shape
/// @p cluster (0 x 0 x 0: none) and its @p signature (its __PRETTY_FUNCTION__), and stop
/// the kernel; otherwise nothing.
void end_probe(dim3 cluster, const char* signature);

// ---- races.cpp ------------------------------------------------------------------------------
/// @brief Threads synchronised: what they accessed before is ordered before what follows.
void race_new_epoch();
/// @brief Block @p linear of @p run starts: a new epoch, and whether its accesses are checked.
void race_start_block(const GridRun& run, unsigned long long linear);
/// @brief The running thread makes an atomic on the @p size bytes at @p address: the change
/// the next access sees is not a plain store.
void race_atomic(const void* address, std::size_t size);

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
/// @brief "__syncthreads()", "__shfl_sync", "cluster.sync()", or the async call a waiting
/// thread @p t of the running block is at.
const char* waiting_call(const ThreadState& t);
/// @brief The same for a thread @p t of block @p b, which need not be the running one.
const char* waiting_call(const BlockRun& b, const ThreadState& t);
/// @brief An access through a cluster.map_shared_rank() pointer (@p what names it) of
/// @p bytes at @p at in the shared memory of block @p owner, another block of the running
/// block's cluster: stops the kernel when a copy of @p owner's has yet to write those bytes
/// (on a GPU the access may see them before or after it lands).
void async_check_remote(const BlockRun& owner, const char* at, std::size_t bytes, const char* what);
/// @brief The calling worker thread switches to block @p b (a cluster's blocks take turns):
/// its shared accesses are watched when @p b has copies in flight.
void async_enter_block(BlockRun& b);

// ---- warp.cpp -------------------------------------------------------------------------------
/// @brief What resolve_warps() did.
enum class WarpProgress { nobody_waiting, released, stuck };
/// @brief When no thread of @p b can run: complete every warp primitive whose lanes have all
/// arrived (they become ready again). When lanes wait at warp primitives and none can
/// complete, record the fault in @p b and return stuck.
WarpProgress resolve_warps(BlockRun& b);
/// @brief Complete the warp primitive that thread @p thread of @p b waits at, if every lane
/// of its mask waits there too (its lanes become ready again); returns whether it did.
/// `__activemask()` is never completed here: it answers the lanes that arrive before the
/// block can go no further, which only resolve_warps() knows.
bool complete_warp_call(BlockRun& b, unsigned thread);
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
/// @brief Complete the warp-wide matrix instruction (ldmatrix, mma.sync, wgmma.mma_async)
/// that all 32 lanes of @p lanes wait at: read each lane's part, write each lane's result
/// (tensor_core.cpp, wgmma.cpp).
void complete_matrix_op(ThreadState* lanes);
/// @brief The fault of the running lane at the tensor-core instruction @p what (@p file:@p line).
KernelFault matrix_lane_fault(const char* what, const char* file, int line, const std::string& problem);
/// @brief A warp-wide matrix instruction needs every lane of a full warp: the fault otherwise.
void require_full_warp(const char* what, const char* file, int line);

// ---- wgmma.cpp ------------------------------------------------------------------------------
/// @brief The part of wgmma.mma_async's completion that runs once the warp's 32 lanes meet.
void complete_wgmma(ThreadState* lanes);
/// @brief A new block starts: no wgmma in flight.
void wgmma_begin_block(BlockRun& b);
/// @brief The running thread finished the kernel: a wgmma still in flight (never committed
/// or never waited for) is reported, since its accumulators were read or dropped unfinished.
void wgmma_thread_end(BlockRun& b);
/// @brief A TMA copy at @p file:@p line (@p api) will write @p bytes at @p dst: stop the
/// kernel when a wgmma that reads them has not been waited for.
void wgmma_check_refill(BlockRun& b, const char* dst, std::size_t bytes, const char* api, const char* file, int line);
/// @brief "lane 3", "lanes 0-15", "lanes 0, 2, 4-7": the lanes set in @p lanes.
std::string lanes_text(unsigned lanes);
/// @brief The message for block @p b stopped at the time limit of @p seconds, its running
/// thread at @p file:@p line (null: a checked memory access whose place is unknown).
std::string time_limit_message(const BlockRun& b, double seconds, const char* file, int line);
/// @brief The threads of @p b but those @p left_out names (by index), grouped by where they
/// are, a line each: "\n    3 threads wait at __syncthreads() at f.cu:12 (the first is thread
/// (4,0,0))", or "have finished the kernel", or "wait for a turn to run". For the messages of
/// a hang and of the time limit.
std::string threads_by_place(const BlockRun& b, const std::function<bool(std::size_t thread)>& left_out);

}  // namespace detail
}  // namespace emu
