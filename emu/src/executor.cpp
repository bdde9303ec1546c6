// Running a grid on the CPU.
//
// Blocks run in parallel, one per worker thread at a time. Inside a block every CUDA
// thread is a fiber that runs until it reaches __syncthreads() or returns; then the next
// one runs, in the order the schedule gives (forward, reverse or seeded random). When no
// thread can run, all must wait at the same barrier: then they are released together.
// Anything else is a divergent barrier. A fiber never leaves its worker thread, so
// blockIdx and the block's shared memory are simply thread-local.
#include "fiber.h"
#include "internal.h"
#include "traffic_hooks.h"

#include <emu/control.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;

namespace emu {
namespace detail {

const void* watched_address = nullptr;

namespace {

// ---- Settings from the environment ------------------------------------------------------------
std::vector<Schedule> parse_schedules(const std::string& text) {
    std::vector<Schedule> result;
    std::stringstream list(text);
    std::string item;
    while (std::getline(list, item, ',')) {
        Schedule s;
        if (item == "forward") {
            s.kind = Schedule::Forward;
        } else if (item == "reverse") {
            s.kind = Schedule::Reverse;
        } else if (item == "random" || item.rfind("random:", 0) == 0) {
            s.kind = Schedule::Random;
            if (item.size() > 7) {
                char* end = nullptr;
                s.seed = std::strtoull(item.c_str() + 7, &end, 10);
                if (*end != '\0') throw std::invalid_argument("bad seed in schedule '" + item + "'");
            }
        } else {
            throw std::invalid_argument("unknown schedule '" + item + "'");
        }
        result.push_back(s);
    }
    if (result.empty()) throw std::invalid_argument("no schedule given");
    return result;
}

std::vector<Schedule>& schedule_setting() {
    static std::vector<Schedule> setting = [] {
        const char* text = std::getenv("EMU_SCHEDULE");
        try {
            return parse_schedules(text != nullptr && *text != '\0' ? text : "forward,reverse");
        } catch (const std::invalid_argument& error) {
            std::fprintf(stderr, "EMU_SCHEDULE=%s: %s. Use a comma-separated list of forward, reverse, random, "
                                 "random:SEED, e.g. EMU_SCHEDULE=forward,reverse (the default).\n",
                         text, error.what());
            std::exit(2);
        }
    }();
    return setting;
}

std::size_t stack_bytes() {
    static const std::size_t bytes = [] {
        const char* text = std::getenv("EMU_STACK_KB");
        const long kib = text != nullptr ? std::atol(text) : 0;
        return static_cast<std::size_t>(kib > 0 ? kib : 64) * 1024;
    }();
    return bytes;
}

// ---- The state of a block being run, per worker thread ----------------------------------------
enum class Status { Ready, Running, AtBarrier, Exited };

struct ThreadState {
    uint3 index{0, 0, 0};
    Status status = Status::Ready;
    const char* file = nullptr;  // the barrier it waits at
    int line = 0;
    int predicate = 0;           // for __syncthreads_count
    Fiber fiber;
};

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

struct BlockRun {
    GridState* grid = nullptr;
    const GridRun* run = nullptr;
    unsigned long long linear = 0;
    std::vector<ThreadState> threads = std::vector<ThreadState>(kMaxThreadsPerBlock);
    ThreadState* current = nullptr;
    std::unique_ptr<char[]> arena;
    std::size_t arena_size = 0;
    std::size_t arena_used = 0;
    std::size_t static_bytes = 0;
    char* dynamic_base = nullptr;
    std::size_t dynamic_bytes = 0;
    std::vector<SharedVariable> variables;
    int barrier_count = 0;
    bool faulted = false;
    KernelFault fault;
    bool used_shared = false;
    bool used_barrier = false;
    bool order_sensitive = false;
};

struct Worker {
    std::vector<std::unique_ptr<Stack>> stacks;
    std::vector<const Stack*> stack_list;
    CrashContext crash;
    BlockRun block;
};

thread_local Worker* worker = nullptr;
thread_local BlockRun* current_block = nullptr;

// ---- One grid run, shared by the workers ---------------------------------------------------------
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
    // Blocks are taken in increasing order; after a fault in block f, blocks after f are
    // skipped and those before it still finish, so the reported fault is always the one
    // of the first faulting block, however the workers were scheduled.
    std::atomic<unsigned long long> first_fault{ULLONG_MAX};
    std::mutex mutex;
    KernelFault fault;
    std::atomic<bool> used_shared{false}, used_barrier{false}, order_sensitive{false};
    std::atomic<std::size_t> static_shared{0};
    std::vector<std::atomic<const char*>> names;
    std::atomic<const char*> signature{nullptr};  // the kernel's __PRETTY_FUNCTION__
    bool watch_seen = false;
    uint3 watch_block{0, 0, 0}, watch_thread{0, 0, 0};
};

void describe_for_crash(char* out, std::size_t size) {
    const BlockRun* b = current_block;
    if (b == nullptr || b->current == nullptr) {
        std::snprintf(out, size, "a worker thread, outside any kernel,");
        return;
    }
    std::snprintf(out, size, "thread (%u,%u,%u) of block (%u,%u,%u) of %s", b->current->index.x, b->current->index.y,
                  b->current->index.z, blockIdx.x, blockIdx.y, blockIdx.z, running_kernel().c_str());
}

Worker& this_worker() {
    if (worker == nullptr) {
        worker = new Worker;  // lives as long as its thread: the process
        worker->crash.describe = &describe_for_crash;
        worker->block.arena_size = kSharedPerBlockOptin + 64 * 1024;
        worker->block.arena.reset(new char[worker->block.arena_size]);
        install_crash_report(&worker->crash);
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

// ---- Running one block ----------------------------------------------------------------------------
void thread_main(void* argument) {
    BlockRun& b = *static_cast<BlockRun*>(argument);
    ThreadState& me = *b.current;
    try {
        b.run->body->run();
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
    me.status = Status::Exited;
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

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

std::string divergence_message(const BlockRun& b, std::size_t count) {
    struct Group {
        const char* file;
        int line;
        std::size_t threads;
        uint3 first;
    };
    std::vector<Group> groups;
    std::size_t exited = 0;
    uint3 first_exited{0, 0, 0};
    for (std::size_t i = 0; i < count; ++i) {
        const ThreadState& t = b.threads[i];
        if (t.status == Status::Exited) {
            if (exited++ == 0) first_exited = t.index;
            continue;
        }
        auto same = [&](const Group& g) { return g.line == t.line && std::strcmp(g.file, t.file) == 0; };
        auto found = std::find_if(groups.begin(), groups.end(), same);
        if (found == groups.end()) {
            groups.push_back(Group{t.file, t.line, 1, t.index});
        } else {
            ++found->threads;
        }
    }
    std::ostringstream out;
    out << "divergent __syncthreads() in " << running_kernel() << ", block " << coordinates(blockIdx)
        << ": every thread of a block must reach the same __syncthreads(), but";
    for (const Group& g : groups) {
        out << "\n  " << g.threads << (g.threads == 1 ? " thread waits" : " threads wait") << " at " << g.file << ":"
            << g.line << " (the first is thread " << coordinates(g.first) << ")";
    }
    if (exited > 0) {
        out << "\n  " << exited << (exited == 1 ? " thread has" : " threads have") << " finished the kernel (the first is thread "
            << coordinates(first_exited) << ")";
    }
    out << "\n  A __syncthreads() inside an `if` that not every thread of the block takes, or a `return` before a "
           "barrier, does this. Keep barriers where all threads reach them; let threads with nothing to do skip "
           "the work, not the barrier.";
    return out.str();
}

void run_block(GridState& grid, unsigned long long linear) {
    Worker& w = this_worker();
    BlockRun& b = w.block;
    const GridRun& run = *grid.run;
    const LaunchRequest& request = *run.request;
    const std::size_t count = static_cast<std::size_t>(request.block.x) * request.block.y * request.block.z;
    ensure_stacks(w, count);

    b.grid = &grid;
    b.run = &run;
    b.linear = linear;
    b.current = nullptr;
    b.faulted = false;
    b.fault = KernelFault{};
    b.variables.clear();
    b.static_bytes = 0;
    b.used_shared = request.shared_bytes > 0;
    b.used_barrier = false;
    b.order_sensitive = false;
    // Dynamic shared memory first, then the __shared__ variables as threads declare them.
    // Everything starts as 0xFF bytes (NaN floats): a read of a value never written shows.
    b.dynamic_base = b.arena.get();
    b.dynamic_bytes = request.shared_bytes;
    std::memset(b.dynamic_base, 0xFF, b.dynamic_bytes);
    b.arena_used = (b.dynamic_bytes + 15) / 16 * 16;

    blockIdx = uint3{static_cast<unsigned>(linear % request.grid.x),
                     static_cast<unsigned>(linear / request.grid.x % request.grid.y),
                     static_cast<unsigned>(linear / (static_cast<unsigned long long>(request.grid.x) * request.grid.y))};
    blockDim = request.block;
    gridDim = request.grid;
    current_block = &b;
    for (std::size_t i = 0; i < count; ++i) {
        ThreadState& t = b.threads[i];
        t.index = uint3{static_cast<unsigned>(i % request.block.x), static_cast<unsigned>(i / request.block.x % request.block.y),
                        static_cast<unsigned>(i / (request.block.x * request.block.y))};
        t.status = Status::Ready;
        t.predicate = 0;
    }

    std::vector<unsigned> order;
    for (unsigned round = 0; !b.faulted; ++round) {
        order_threads(run.schedule, count, linear, round, order);
        for (unsigned i : order) {
            ThreadState& t = b.threads[i];
            if (t.status != Status::Ready) continue;
            threadIdx = t.index;
            t.status = Status::Running;
            b.current = &t;
            if (round == 0) t.fiber.start(*w.stacks[i], &thread_main, &b);
            t.fiber.resume();
            b.current = nullptr;
            if (b.faulted) break;
        }
        if (b.faulted) break;
        // Nobody can run: either all have finished, or all wait at one barrier.
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
    }
    // Fibers still waiting at a barrier after a fault are unwound here.
    for (std::size_t i = 0; i < count; ++i) b.threads[i].fiber.reset();
    current_block = nullptr;

    if (b.used_shared) grid.used_shared = true;
    if (b.used_barrier) grid.used_barrier = true;
    if (b.order_sensitive) grid.order_sensitive = true;
    std::size_t seen = grid.static_shared.load();
    while (b.static_bytes > seen && !grid.static_shared.compare_exchange_weak(seen, b.static_bytes)) {
    }
    if (b.faulted) {
        std::lock_guard<std::mutex> lock(grid.mutex);
        if (linear < grid.first_fault.load()) {
            grid.first_fault = linear;
            grid.fault = b.fault;
        }
    }
}

void work(GridState& grid) {
    for (;;) {
        const unsigned long long block = grid.next.fetch_add(1);
        if (block >= grid.total || block > grid.first_fault.load()) return;
        run_block(grid, block);
    }
}

// ---- Worker threads ----------------------------------------------------------------------------------
class Pool {
public:
    void run(GridState& grid, unsigned workers) {
        std::unique_lock<std::mutex> lock(mutex_);
        while (threads_started_ < worker_count()) {
            std::thread(&Pool::loop, this, threads_started_++).detach();
        }
        job_ = &grid;
        job_workers_ = std::max(1u, std::min(workers, worker_count()));
        busy_ = job_workers_;
        ++generation_;
        wake_.notify_all();
        done_.wait(lock, [&] { return busy_ == 0; });
        job_ = nullptr;
    }

private:
    void loop(unsigned id) {
        std::uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return generation_ != seen; });
            seen = generation_;
            if (id >= job_workers_) continue;
            GridState* grid = job_;
            lock.unlock();
            work(*grid);
            lock.lock();
            if (--busy_ == 0) done_.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_, done_;
    unsigned threads_started_ = 0;
    std::uint64_t generation_ = 0;
    GridState* job_ = nullptr;
    unsigned job_workers_ = 0;
    unsigned busy_ = 0;
};

Pool& pool() {
    static Pool* p = new Pool;  // its threads live until the process ends
    return *p;
}

BlockRun& block_or_die(const char* what) {
    if (current_block == nullptr || current_block->current == nullptr) unsupported_outside_kernel(what);
    return *current_block;
}

std::string array_text(const SharedVariable& v) {
    std::ostringstream out;
    out << "__shared__ " << (v.type_name != nullptr ? v.type_name : "") << (v.type_name != nullptr ? " " : "") << v.name;
    for (std::size_t d = 0; d < v.rank; ++d) out << "[" << v.extents[d] << "]";
    return out.str();
}

}  // namespace

std::string Schedule::name() const {
    switch (kind) {
        case Forward: return "forward";
        case Reverse: return "reverse";
        case Random: return "random:" + std::to_string(seed);
    }
    return "?";
}

const std::vector<Schedule>& schedules() { return schedule_setting(); }

unsigned worker_count() {
    static const unsigned count = [] {
        const char* text = std::getenv("EMU_THREADS");
        const long wanted = text != nullptr ? std::atol(text) : 0;
        const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
        return wanted > 0 ? static_cast<unsigned>(std::min<long>(wanted, 256)) : hardware;
    }();
    return count;
}

GridOutcome run_grid(const GridRun& run) {
    GridState grid(run);
    watched_address = run.watch;
    pool().run(grid, run.workers);
    watched_address = nullptr;

    GridOutcome outcome;
    outcome.faulted = grid.first_fault.load() != ULLONG_MAX;
    outcome.fault = grid.fault;
    outcome.used_shared = grid.used_shared;
    outcome.used_barrier = grid.used_barrier;
    outcome.order_sensitive = grid.order_sensitive;
    outcome.static_shared = grid.static_shared;
    outcome.watch_seen = grid.watch_seen;
    outcome.watch_block = grid.watch_block;
    outcome.watch_thread = grid.watch_thread;
    for (const auto& name : grid.names) outcome.pointer_names.push_back(name.load());
    outcome.kernel = kernel_label(run, grid.signature.load());
    return outcome;
}

bool inside_kernel() { return current_block != nullptr; }

std::string coordinates(uint3 v) {
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string running_thread() { return "block " + coordinates(blockIdx) + ", thread " + coordinates(threadIdx); }

std::string running_kernel() {
    if (current_block == nullptr) return "a kernel";
    return kernel_label(*current_block->run, current_block->grid->signature.load(std::memory_order_relaxed));
}

std::string kernel_label(const GridRun& run, const char* signature) {
    std::string label = run.kernel_text;
    // g++ writes a template's arguments as "... [with int TILE = 16]".
    const char* with = signature != nullptr ? std::strstr(signature, " [with ") : nullptr;
    if (with != nullptr) label += with;
    return label + " (launched at " + run.launch_site + ")";
}

void kernel_entered(const char* signature) {
    if (current_block != nullptr && current_block->grid->signature.load(std::memory_order_relaxed) == nullptr) {
        current_block->grid->signature.store(signature, std::memory_order_relaxed);
    }
}

void note_pointer_name(const void* pointer, const char* name) {
    if (current_block == nullptr) return;
    const LaunchRequest& request = *current_block->run->request;
    for (std::size_t i = 0; i < request.pointer_count; ++i) {
        if (request.pointers[i].pointer == pointer && current_block->grid->names[i].load(std::memory_order_relaxed) == nullptr) {
            current_block->grid->names[i].store(name, std::memory_order_relaxed);
        }
    }
}

void note_watched_access() {
    if (current_block == nullptr) return;
    GridState& grid = *current_block->grid;
    std::lock_guard<std::mutex> lock(grid.mutex);
    grid.watch_seen = true;
    grid.watch_block = blockIdx;
    grid.watch_thread = threadIdx;
}

void note_order_sensitive_atomic() {
    if (current_block != nullptr) current_block->order_sensitive = true;
}

void unsupported_outside_kernel(const char* what) {
    std::fprintf(stderr, "CPU backend: %s can only be used in code that a kernel runs.\n", what);
    std::abort();
}

void syncthreads(const char* file, int line) {
    BlockRun& b = block_or_die("__syncthreads()");
    ThreadState& me = *b.current;
    me.status = Status::AtBarrier;
    me.file = file;
    me.line = line;
    b.used_barrier = true;
    traffic::detail::note_barrier();  // the profiler counts barriers (traffic_hooks.h)
    me.fiber.suspend();
}

int syncthreads_count(int predicate, const char* file, int line) {
    BlockRun& b = block_or_die("__syncthreads_count()");
    b.current->predicate = predicate != 0;
    syncthreads(file, line);
    return b.barrier_count;
}

void* shared_storage(const void* key, std::size_t bytes, std::size_t alignment, const char* name,
                     const std::size_t* extents, std::size_t rank, const char* type_name, const char* file, int line) {
    BlockRun& b = block_or_die("a __shared__ variable");
    for (const SharedVariable& v : b.variables) {
        if (v.key == key) return v.address;
    }
    b.static_bytes += bytes;
    b.used_shared = true;
    const std::size_t at = (b.arena_used + alignment - 1) / alignment * alignment;
    std::ostringstream problem;
    if (b.static_bytes > kSharedPerBlock) {
        problem << running_kernel() << " declares " << b.static_bytes << " bytes of __shared__ variables (the last is "
                << name << " at " << file << ":" << line << "), more than the " << kSharedPerBlock
                << " bytes (48 KiB) a block may declare; a GPU compiler rejects this. Above 48 KiB use extern "
                   "__shared__ memory, sized at launch, and opt in with cudaFuncSetAttribute.";
    } else if (b.static_bytes + b.dynamic_bytes > b.run->shared_limit) {
        problem << running_kernel() << " needs " << b.static_bytes << " bytes of __shared__ variables and "
                << b.dynamic_bytes << " bytes of dynamic shared memory per block, more than its limit of "
                << b.run->shared_limit << " bytes (raise it with cudaFuncSetAttribute(kernel, "
                << "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), up to sharedMemPerBlockOptin = "
                << kSharedPerBlockOptin << ").";
    } else if (at + bytes > b.arena_size) {
        problem << running_kernel() << ": too many __shared__ variables for the CPU backend's shared memory.";
    }
    if (!problem.str().empty()) throw KernelFault{cudaErrorInvalidValue, problem.str(), true};
    char* address = b.arena.get() + at;
    std::memset(address, 0xFF, bytes);
    b.arena_used = at + bytes;
    b.variables.push_back(SharedVariable{key, address, bytes, name, extents, rank, type_name, file, line});
    return address;
}

DynamicShared dynamic_shared() {
    BlockRun& b = block_or_die("extern __shared__ memory");
    return DynamicShared{b.dynamic_base, b.dynamic_bytes};
}

void shared_out_of_bounds(const void* array, long long index, std::size_t extent, std::size_t element_bytes) {
    BlockRun& b = block_or_die("a __shared__ array");
    std::ostringstream out;
    out << "out-of-bounds shared memory access in " << running_kernel() << ", " << running_thread() << ":\n  ";
    const char* at = static_cast<const char*>(array);
    const SharedVariable* v = nullptr;
    for (const SharedVariable& candidate : b.variables) {
        if (at >= candidate.address && at < candidate.address + candidate.bytes) v = &candidate;
    }
    if (v == nullptr || v->rank == 0) {
        out << "index " << index << " is outside a __shared__ array of " << extent << " elements.";
    } else {
        // Which dimension failed, and the indices before it: from the address of the row
        // that was indexed, and the size of one of its elements.
        std::size_t stride = v->bytes;
        std::size_t dimension = 0;
        std::string prefix = v->name;
        const std::size_t offset = static_cast<std::size_t>(at - v->address);
        for (; dimension < v->rank; ++dimension) {
            stride /= v->extents[dimension];
            if (stride == element_bytes && v->extents[dimension] == extent) break;
            prefix += "[" + std::to_string(offset / stride % v->extents[dimension]) + "]";
        }
        out << prefix << "[" << index << "]: index " << index << " is outside " << array_text(*v) << " (declared at "
            << v->file << ":" << v->line << ")";
        if (v->rank > 1) out << ", whose dimension " << dimension + 1;
        out << " runs from 0 to " << extent - 1 << ".";
    }
    throw KernelFault{cudaErrorIllegalAddress, out.str()};
}

void dynamic_shared_out_of_bounds(const char* name, long long index, std::size_t element_size, const char* type_name,
                                  std::size_t bytes) {
    BlockRun& b = block_or_die("extern __shared__ memory");
    std::ostringstream out;
    out << "out-of-bounds shared memory access in " << running_kernel() << ", " << running_thread() << ":\n  " << name
        << "[" << index << "] is outside the dynamic shared memory `extern __shared__ " << (type_name ? type_name : "T")
        << " " << name << "[]`: the launch gave " << bytes << " bytes (" << bytes / element_size << " "
        << (type_name ? std::string(type_name) + "s" : "elements of " + std::to_string(element_size) + " bytes")
        << "), the third parameter of <<<grid, block, bytes>>>, so its indices run from 0 to "
        << static_cast<long long>(bytes / element_size) - 1
        << ".\n  Size it on the host for everything a block stores there, halo included.";
    throw KernelFault{cudaErrorIllegalAddress, out.str()};
}

}  // namespace detail

void set_schedules(const std::string& list) { detail::schedule_setting() = detail::parse_schedules(list); }

std::string schedules() {
    std::string text;
    for (const detail::Schedule& s : detail::schedules()) text += (text.empty() ? "" : ",") + s.name();
    return text;
}

}  // namespace emu
