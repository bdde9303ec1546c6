// Running a grid on the CPU.
//
// Blocks run in parallel, one per worker thread at a time. Inside a block every CUDA
// thread is a fiber that runs until it reaches __syncthreads() or a warp primitive, or
// returns; then the next one runs, in the order the schedule gives (forward, reverse or
// seeded random). When no thread can run, the warp primitives whose lanes have all
// arrived complete (warp.cpp); when none can, all threads must wait at the same barrier:
// then they are released together. Anything else is a divergent barrier. A fiber never leaves its worker thread, so
// blockIdx and the block's shared memory are simply thread-local.
#include "block.h"
#include "traffic_hooks.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;

namespace emu {
namespace detail {

thread_local BlockRun* current_block = nullptr;

namespace {

thread_local Worker* worker = nullptr;

void describe_for_crash(char* out, std::size_t size) {
    const BlockRun* b = current_block;
    if (b == nullptr || b->current == nullptr) {
        std::snprintf(out, size, "a worker thread, outside any kernel,");
        return;
    }
    std::snprintf(out, size, "thread (%u,%u,%u) of block (%u,%u,%u) of %s", b->current->index.x, b->current->index.y,
                  b->current->index.z, blockIdx.x, blockIdx.y, blockIdx.z, running_kernel().c_str());
}

}  // namespace

Worker& this_worker() {
    if (worker == nullptr) {
        worker = new Worker;  // lives as long as its thread: the process
        worker->crash.describe = &describe_for_crash;
        allocate_shared_arena(worker->block);
        install_crash_report(&worker->crash);
        register_worker(*worker);
    }
    return *worker;
}

void ensure_stacks(Worker& w, std::size_t count) {
    while (w.stacks.size() < count) {
        w.stacks.push_back(std::make_unique<Stack>(stack_bytes()));
        w.stack_list.push_back(w.stacks.back().get());
    }
    w.crash.stacks = w.stack_list.data();
    w.crash.stack_count = w.stack_list.size();
}

void thread_main(void* argument) {
    BlockRun& b = *static_cast<BlockRun*>(argument);
    ThreadState& me = *b.current;
    CrashRecovery recovery;
    if (sigsetjmp(recovery.jump, 1) != 0) {
        // The thread crashed (fiber.cpp); run_block() or run_cluster() words the message on
        // its own stack.
        if (!b.faulted) {
            b.faulted = true;
            b.crash = recovery;
            b.fault = KernelFault{cudaErrorIllegalAddress, ""};
        }
        me.recovery = nullptr;
        me.status = Status::Exited;
        ++b.exited_threads;
        return;
    }
    me.recovery = &recovery;
    arm_crash_recovery(&recovery);
    try {
        b.run->body->run();
        async_checkpoint(b);  // an access at the very end to bytes a copy had yet to write
        wgmma_thread_end(b);  // accumulators of a wgmma still in flight
    } catch (KernelFault& fault) {
        if (!b.faulted) {
            b.faulted = true;
            b.fault = std::move(fault);
        }
    } catch (const std::exception& error) {
        if (!b.faulted) {
            b.faulted = true;
            b.fault = KernelFault{cudaErrorLaunchFailure,
                                  "in " + running_kernel() + ", " + running_thread() + ": an exception: " + error.what()};
        }
    }
    arm_crash_recovery(nullptr);
    me.recovery = nullptr;
    me.status = Status::Exited;
    ++b.exited_threads;
}

void run_thread_slice(Worker& w, BlockRun& b, unsigned i, bool first, Stack& stack) {
    ThreadState& t = b.threads[i];
    threadIdx = t.index;
    w.running_thread.store(i, std::memory_order_relaxed);
    t.status = Status::Running;
    b.current = &t;
    if (first) t.fiber.start(stack, &thread_main, &b);
    arm_crash_recovery(t.recovery);  // null before its first run: thread_main() arms its own
    t.fiber.resume();
    arm_crash_recovery(nullptr);
    if (b.faulted && b.crash.signal != 0 && b.fault.message.empty()) b.fault.message = crash_message(b.crash);
    b.current = nullptr;
}

std::string crash_message(const CrashRecovery& crash) {
    std::ostringstream out;
    const std::string site = source_line_of(crash.instruction);
    out << "crash in " << running_kernel() << ", " << running_thread() << ":\n  " << (site.empty() ? "" : site + "\n  ");
    if (crash.overflow) {
        out << "the thread overflowed its stack of " << stack_bytes() / 1024 << " KiB (a large local array, or deep "
            << "recursion?). EMU_STACK_KB=n gives every CUDA thread n KiB.";
        return out.str();
    }
    if (crash.signal == SIGSEGV && crash.code == SI_KERNEL) {
        // x86 reports a misaligned 16-byte SSE access as a general-protection fault, with no address.
        out << "a general-protection fault: on this CPU, the sign of a misaligned 16-byte access (a float4 or "
               "another 16-byte type at an address that is not a multiple of 16, which a GPU refuses too: "
               "cudaErrorMisalignedAddress), or of a pointer that holds no address at all.";
    } else {
        out << (crash.signal == SIGBUS ? "a bus error" : "a segmentation fault") << " at address " << crash.address;
        const Allocation* near = find_allocation(crash.address);
        if (near != nullptr) out << ", inside a " << near->api << " buffer of " << near->bytes << " bytes";
        out << ": an access through a raw pointer that the CPU backend's checks do not follow, far outside its data.";
    }
    out << "\n  Accesses through a kernel's pointer parameters, through casts of them and to __shared__ arrays are "
           "checked; this one went through a pointer the checks did not reach (a raw pointer variable, say "
           "`const float4* p = ...`; `auto p = reinterpret_cast<const float4*>(...)` stays checked).";
    return out.str();
}

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

}  // namespace

// The threads in the order they run in round @p round (the part before the first barrier
// is round 0). Random orders depend only on the seed, the block and the round, never on
// which worker runs the block, so a run can be repeated exactly.
void order_threads(const Schedule& schedule, std::size_t count, unsigned long long block, unsigned round,
                   std::vector<unsigned>& order) {
    order.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        order[i] = static_cast<unsigned>(schedule.kind == Schedule::Reverse ? count - 1 - i : i);
    }
    if (schedule.kind == Schedule::Random) {
        std::uint64_t state = mix(schedule.seed ^ mix(block * 0x100000001b3ull + round));
        for (std::size_t i = count; i > 1; --i) {
            state = mix(state);
            std::swap(order[i - 1], order[state % i]);
        }
    }
}

void start_block(GridState& grid, BlockRun& b, unsigned long long linear) {
    const GridRun& run = *grid.run;
    const LaunchRequest& request = *run.request;
    const std::size_t count = static_cast<std::size_t>(request.block.x) * request.block.y * request.block.z;
    b.grid = &grid;
    b.run = &run;
    b.linear = linear;
    b.thread_count = count;
    b.current = nullptr;
    b.faulted = false;
    b.fault = KernelFault{};
    b.crash.signal = 0;
    b.used_barrier = false;
    b.order_sensitive = false;
    race_start_block(run, linear);  // a new block: the last one's accesses are not its threads' (races.cpp)
    b.exited_threads = 0;
    b.cluster = nullptr;
    b.cluster_rank = 0;
    b.index = uint3{static_cast<unsigned>(linear % request.grid.x),
                    static_cast<unsigned>(linear / request.grid.x % request.grid.y),
                    static_cast<unsigned>(linear / (static_cast<unsigned long long>(request.grid.x) * request.grid.y))};
    reset_shared_memory(b, request.shared_bytes);
    for (std::size_t i = 0; i < count; ++i) {
        ThreadState& t = b.threads[i];
        t.index = uint3{static_cast<unsigned>(i % request.block.x), static_cast<unsigned>(i / request.block.x % request.block.y),
                        static_cast<unsigned>(i / (request.block.x * request.block.y))};
        t.status = Status::Ready;
        t.predicate = 0;
    }
    async_begin_block(b);
    wgmma_begin_block(b);
}

void finish_block(GridState& grid, BlockRun& b) {
    if (!b.faulted) grid.finished.fetch_add(1);
    if (b.used_shared) grid.used_shared = true;
    if (b.used_barrier) grid.used_barrier = true;
    if (b.order_sensitive) grid.order_sensitive = true;
    std::size_t seen = grid.static_shared.load();
    while (b.static_bytes > seen && !grid.static_shared.compare_exchange_weak(seen, b.static_bytes)) {
    }
    if (b.faulted) {
        std::lock_guard<std::mutex> lock(grid.mutex);
        if (b.linear < grid.first_fault.load()) {
            grid.first_fault = b.linear;
            grid.fault = b.fault;
        }
    }
}

namespace {

// When thread @p i has just arrived at a warp primitive that every lane of its mask waits
// at, complete it and run those lanes on at once (in the schedule's order), again and again
// while they meet at warp primitives: a warp goes ahead of the warps later in the order
// until it reaches a barrier, a wait, or its end, as a GPU's warps run independently. A
// barrier missing between one warp's reads of shared memory (an ldmatrix, say) and another
// warp's writes then changes the result with the order, which the order check reports; in
// lockstep the warps would hide it. Only lanes that waited are run on, so a lane that has
// not started yet (outside a partial mask) is never resumed here.
void run_warp_on(Worker& w, BlockRun& b, const std::vector<unsigned>& order, unsigned i) {
    const unsigned first = i / 32 * 32;
    const unsigned end = static_cast<unsigned>(std::min<std::size_t>(first + 32, b.thread_count));
    const auto waiting_lanes = [&] {
        unsigned lanes = 0;
        for (unsigned t = first; t < end; ++t) {
            if (b.threads[t].status == Status::AtWarp) lanes |= 1u << (t - first);
        }
        return lanes;
    };
    unsigned waited = waiting_lanes();
    bool completed = complete_warp_call(b, i);
    while (completed && !b.faulted) {
        race_new_epoch();  // the lanes synchronised: their accesses before are ordered (races.cpp)
        for (unsigned j : order) {
            if (j < first || j >= end || (waited >> (j - first) & 1u) == 0 || b.threads[j].status != Status::Ready) {
                continue;
            }
            run_thread_slice(w, b, j, false, *w.stacks[j]);
            if (b.faulted) return;
        }
        waited = waiting_lanes();
        completed = false;
        for (unsigned t = first; t < end && !completed; ++t) {
            if ((waited >> (t - first) & 1u) != 0) completed = complete_warp_call(b, t);
        }
    }
}

void run_block(GridState& grid, unsigned long long linear) {
    Worker& w = this_worker();
    BlockRun& b = w.block;
    const GridRun& run = *grid.run;
    const LaunchRequest& request = *run.request;
    const std::size_t count = static_cast<std::size_t>(request.block.x) * request.block.y * request.block.z;
    ensure_stacks(w, count);
    start_block(grid, b, linear);
    blockIdx = b.index;
    blockDim = request.block;
    gridDim = request.grid;
    current_block = &b;
    w.running_block.store(linear + 1, std::memory_order_relaxed);

    std::vector<unsigned> order;
    for (unsigned round = 0; !b.faulted; ++round) {
        race_new_epoch();  // threads that synchronised go on: accesses before are ordered (races.cpp)
        order_threads(run.schedule, count, linear, round, order);
        for (unsigned i : order) {
            if (b.threads[i].status != Status::Ready) continue;
            run_thread_slice(w, b, i, round == 0, *w.stacks[i]);
            if (b.faulted) break;
            run_warp_on(w, b, order, i);
            if (b.faulted) break;
        }
        if (b.faulted) break;
        // A barrier phase or pipeline stage that completed in this round let threads go on
        // that came earlier in the order: they run in the next.
        bool woken = false;
        for (std::size_t i = 0; i < count && !woken; ++i) woken = b.threads[i].status == Status::Ready;
        if (woken) continue;
        // Nobody can run. Warp primitives whose lanes have all arrived complete first.
        const WarpProgress warps = resolve_warps(b);
        if (warps == WarpProgress::released) continue;
        // Threads waiting for a barrier phase or a pipeline stage nobody can complete.
        if (async_stuck(b)) break;
        if (warps == WarpProgress::stuck) break;
        // Either all have finished, or all wait at one barrier.
        std::size_t waiting = 0, exited = 0, agree = 0;
        const ThreadState* first_waiting = nullptr;
        int count_true = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const ThreadState& t = b.threads[i];
            if (t.status == Status::Exited) {
                ++exited;
                continue;
            }
            if (first_waiting == nullptr) first_waiting = &t;
            ++waiting;
            count_true += t.predicate != 0;
            agree += t.line == first_waiting->line && std::strcmp(t.file, first_waiting->file) == 0;
        }
        if (waiting == 0) break;
        if (exited > 0 || agree != waiting) {
            b.faulted = true;
            b.fault = KernelFault{cudaErrorLaunchFailure, divergence_message(b, count)};
            break;
        }
        b.barrier_count = count_true;
        for (std::size_t i = 0; i < count; ++i) {
            b.threads[i].status = Status::Ready;
            b.threads[i].predicate = 0;
        }
        async_after_syncthreads(b);
    }
    // Fibers still waiting at a barrier after a fault are unwound here.
    for (std::size_t i = 0; i < count; ++i) b.threads[i].fiber.reset();
    async_end_block(b);
    current_block = nullptr;
    w.running_block.store(0, std::memory_order_relaxed);
    finish_block(grid, b);
}

}  // namespace

void work(GridState& grid) {
    // A cluster launch hands out whole clusters: their blocks run together (cluster.cpp).
    const unsigned long long per_cluster = cluster_size(*grid.run);
    for (;;) {
        const unsigned long long unit = grid.next.fetch_add(1);
        if (unit * per_cluster >= grid.total || unit * per_cluster > grid.first_fault.load()) return;
        if (grid.run->cluster.x == 0) {
            run_block(grid, unit);
        } else {
            run_cluster(grid, unit);
        }
    }
}

BlockRun& block_or_die(const char* what) {
    if (current_block == nullptr || current_block->current == nullptr) unsupported_outside_kernel(what);
    return *current_block;
}

GridOutcome run_grid(const GridRun& run) {
    GridState grid(run);
    watched_address = run.watch;
    {
        const TimeLimit limit(run);
        run_on_workers(grid, run.workers);
    }
    watched_address = nullptr;

    GridOutcome outcome;
    outcome.faulted = grid.first_fault.load() != ULLONG_MAX;
    outcome.fault = grid.fault;
    outcome.used_shared = grid.used_shared;
    outcome.used_barrier = grid.used_barrier;
    outcome.order_sensitive = grid.order_sensitive;
    outcome.static_shared = grid.static_shared;
    static_cast<WatchedTouches&>(outcome) = grid;
    for (const auto& name : grid.names) outcome.pointer_names.push_back(name.load());
    outcome.kernel = kernel_label(run, grid.signature.load());
    return outcome;
}

void unsupported_outside_kernel(const char* what) {
    std::fprintf(stderr, "CPU backend: %s can only be used in code that a kernel runs.\n", what);
    std::abort();
}

void wait_at_barrier(BlockRun& b, Status barrier, const char* file, int line) {
    check_time(file, line);
    async_checkpoint(b);
    ThreadState& me = *b.current;
    me.status = barrier;
    me.file = file;
    me.line = line;
    b.used_barrier = true;
    traffic::detail::note_barrier();  // the profiler counts barriers (traffic_hooks.h)
    me.fiber.suspend();
}

void syncthreads(const char* file, int line) {
    wait_at_barrier(block_or_die("__syncthreads()"), Status::AtBarrier, file, line);
}

int syncthreads_count(int predicate, const char* file, int line) {
    BlockRun& b = block_or_die("__syncthreads_count()");
    b.current->predicate = predicate != 0;
    syncthreads(file, line);
    return b.barrier_count;
}

}  // namespace detail
}  // namespace emu
