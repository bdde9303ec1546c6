// Asynchronous copies into shared memory: cp.async commit groups, cuda::barrier (mbarrier)
// phases with transaction bytes, block-scope cuda::pipeline stages, bulk and TMA copies.
//
// A copy reads its source when it is issued and keeps the bytes aside; its destination
// keeps its old bytes until the wait that completes the copy, as on a GPU, where nothing
// says when an asynchronous copy lands before its wait. Each shared byte a copy will
// write is marked with the copy (AsyncState::owner): a checked access to a marked byte
// is noted, and at the thread's next call into the backend it is reported as a read
// (the bytes did not change) or a write. Waits that can never complete (a hang on a GPU)
// are found when no thread of the block can run. The rules a GPU enforces (sizes,
// alignment, where source and destination lie) are checked when a copy is issued.
#include "async_copy.h"
#include "traffic_hooks.h"

#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <sstream>
#include <unordered_map>

namespace emu {
namespace detail {

__thread int async_watch = 0;


namespace async_parts {

void destroy(AsyncState* s) { delete s; }

AsyncState& state_of(BlockRun& b) {
    if (!b.async) {
        b.async = std::unique_ptr<AsyncState, void (*)(AsyncState*)>(new AsyncState, &destroy);
        b.async->owner.assign(b.arena_size, 0);
        b.async->landed.assign(b.arena_size, 0);
    }
    if (b.async->threads.size() < b.thread_count) b.async->threads.resize(b.thread_count);
    return *b.async;
}

void update_watch(const AsyncState& s) { async_watch = s.in_flight != 0 || s.hit.active || s.any_landed; }

unsigned me(const BlockRun& b) { return static_cast<unsigned>(b.current - b.threads.data()); }

// Thread @p thread's wait on @p bar returned: it has seen every phase before bar.phase complete.
void note_seen(AsyncState& s, unsigned thread, BarrierState& bar) {
    auto& seen = s.threads[thread].seen;
    auto found = std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == &bar; });
    if (found == seen.end()) seen.push_back({&bar, bar.phase});
    else found->second = std::max(found->second, bar.phase);
    bar.seen_max = std::max(bar.seen_max, bar.phase);
}

// Whether thread @p thread may see what phase @p phase of @p bar delivered.
bool seen_complete(const AsyncState& s, unsigned thread, const BarrierState& bar, std::uint64_t phase) {
    if (bar.seen_at_sync > phase) return true;
    for (const auto& [which, phases] : s.threads[thread].seen) {
        if (which == &bar) return phases > phase;
    }
    return false;
}

// "file:line", or what stands in for it when the access came without its place (an
// element whose address was taken, then read through a cast pointer such as a float4*).
std::string site(const char* file, int line) {
    if (file == nullptr || line <= 0) return "a line the CPU backend was not told (an access through a cast pointer)";
    return std::string(file) + ":" + std::to_string(line);
}

// "in KERNEL, block (1,0,0), thread (3,0,0)".
std::string where() { return "in " + running_kernel() + ", " + running_thread(); }

[[noreturn]] void stop(cudaError_t code, const std::string& message) { throw KernelFault{code, message}; }

// "`tile` (declared at f:l), byte 12" or "dynamic shared memory, byte 12".
std::string shared_place(const BlockRun& b, const char* p) {
    for (const SharedVariable& v : b.variables) {
        if (p >= v.address && p < v.address + v.bytes) {
            return "`" + std::string(v.name) + "` (declared at " + site(v.file, v.line) + "), byte " +
                   std::to_string(p - v.address);
        }
    }
    if (p >= b.dynamic_base && p < b.dynamic_base + b.dynamic_bytes) {
        return "the dynamic shared memory (extern __shared__), byte " + std::to_string(p - b.dynamic_base);
    }
    return "shared memory";
}

bool in_shared(const BlockRun& b, const char* p, std::size_t bytes) {
    const char* base = b.arena.get();
    return p >= base && p + bytes <= base + b.arena_used;
}

std::string thread_name(const BlockRun& b, unsigned t) { return "thread " + coordinates(b.threads[t].index); }

std::string describe_barrier(const BarrierState& bar) {
    switch (bar.role) {
        case BarrierRole::pipeline_produced:
            return "stage " + std::to_string(bar.stage) + " of the pipeline made at " + site(bar.init_file, bar.init_line);
        case BarrierRole::pipeline_consumed:
            return "stage " + std::to_string(bar.stage) + " of the pipeline made at " + site(bar.init_file, bar.init_line);
        case BarrierRole::user: break;
    }
    return "the cuda::barrier initialised at " + site(bar.init_file, bar.init_line) + " (count " +
           std::to_string(bar.expected) + ")";
}

// When a copy lands, for messages.
std::string completion(const BlockRun& b, const Copy& c) {
    switch (c.via) {
        case Via::open_group:
            return "it is not even committed yet: it lands when " + thread_name(b, c.thread) +
                   " commits it (__pipeline_commit(), producer_commit()) and then waits for it";
        case Via::group:
            return "it lands when " + thread_name(b, c.thread) +
                   " waits for its commit group (__pipeline_wait_prior(), consumer_wait(), "
                   "cuda::pipeline_consumer_wait_prior())";
        case Via::stage_open:
            return "it lands when " + thread_name(b, c.thread) +
                   " has committed the stage (producer_commit()) and the consumers' consumer_wait() returns";
        case Via::barrier:
            if (c.barrier->role == BarrierRole::pipeline_produced) {
                return "it lands when every producer has committed " + describe_barrier(*c.barrier) +
                       ", which consumer_wait() waits for";
            }
            return "it lands when phase " + std::to_string(c.phase) + " of " + describe_barrier(*c.barrier) +
                   " completes, which its wait() waits for";
    }
    return "";
}

void land(AsyncState& s, BlockRun& b, unsigned id) {
    Copy& c = s.copies[id];
    if (c.landed) return;
    std::memcpy(c.dst, c.data.data(), c.bytes);
    const std::size_t at = static_cast<std::size_t>(c.dst - b.arena.get());
    for (std::size_t i = 0; i < c.bytes; ++i) {
        if (s.owner[at + i] == id + 1) {
            s.owner[at + i] = 0;
            if (c.barrier != nullptr) s.landed[at + i] = id + 1;
        }
    }
    if (c.barrier != nullptr) s.any_landed = true;
    c.landed = true;
    c.data = std::vector<unsigned char>();
    --s.in_flight;
    update_watch(s);
}

// Report the access noted in s.hit: a read when its bytes are as they were, else a write.
void report_hit(AsyncState& s, BlockRun& b, const char* reader) {
    Hit h = s.hit;
    s.hit.active = false;
    update_watch(s);
    const bool written = std::memcmp(h.before, h.address, std::min(h.bytes, sizeof h.before)) != 0;
    const Copy& c = s.copies[h.copy];
    std::ostringstream out;
    if (reader != nullptr) {
        out << reader << " at " << site(h.file, h.line) << " reads its operand from shared memory ";
        if (h.unseen) {
            out << "that the asynchronous copy issued at " << site(c.file, c.line)
                << " wrote in a barrier phase this thread has not waited for, " << where() << ":\n  ";
        } else {
            out << "before the asynchronous copy issued at " << site(c.file, c.line) << " has landed, " << where()
                << ":\n  ";
        }
        out << "the " << h.bytes << " bytes at " << shared_place(b, h.address) << " are written by " << c.api << " ("
            << c.bytes << " bytes, issued by " << thread_name(b, c.thread) << "); ";
        if (h.unseen) {
            out << "they arrived in phase " << c.phase << " of " << describe_barrier(*c.barrier)
                << ", which this thread has not waited for";
        } else {
            out << completion(b, c);
        }
        out << ".\n  " << reader
            << " reads shared memory asynchronously, from the moment it is issued: wait for the stage's barrier "
               "(the phase whose expected bytes the stage's TMA copies deliver) before issuing the wgmma that reads the "
               "stage, and read the stage of the phase waited for.";
        stop(cudaErrorLaunchFailure, out.str());
    }
    if (h.unseen) {
        out << "shared memory " << (written ? "written" : "read") << " at " << site(h.file, h.line)
            << " before this thread waited for the asynchronous copy issued at " << site(c.file, c.line) << ", "
            << where() << ":\n  the " << (written ? "write" : "read") << " of " << h.bytes << " bytes at "
            << shared_place(b, h.address) << " touches bytes that " << c.api << " (" << c.bytes << " bytes, issued by "
            << thread_name(b, c.thread) << ") wrote in phase " << c.phase << " of " << describe_barrier(*c.barrier)
            << ", which this thread has not waited for (nor had any thread before a __syncthreads() it has passed). "
               "On a GPU the copy may land at any time until that wait returns. A thread may use only the bytes of "
               "the stage its last wait was for: a stage index that is not the one waited for (in a pipeline, the "
               "oldest stage, phase % STAGES), or a wait for the wrong barrier.";
        stop(cudaErrorLaunchFailure, out.str());
    }
    out << "shared memory " << (written ? "written" : "read") << " at " << site(h.file, h.line)
        << " before the asynchronous copy issued at " << site(c.file, c.line) << " was waited for, " << where()
        << ":\n  the " << (written ? "write" : "read") << " of " << h.bytes << " bytes at " << shared_place(b, h.address)
        << " touches bytes that " << c.api << " (" << c.bytes << " bytes, issued by " << thread_name(b, c.thread)
        << ") has yet to write; " << completion(b, c) << ".\n  Until then they hold their old contents";
    if (written) {
        out << ", and the copy overwrites this write when it lands";
    }
    out << ". Wait for the copy before using its bytes (and, when another thread issued it, __syncthreads() after the "
           "wait); where the waits are there, the " << (written ? "write" : "read")
        << " may be of a stage other than the one waited for (in a pipeline, the oldest stage, phase % STAGES: an "
           "index off by one reads a stage still in flight). If this "
        << (written ? "write" : "read")
        << " meant the bytes' earlier contents, the copy refilled them too early: a stage refilled before every "
           "consumer released it, or a __syncthreads() missing before the refill.";
    stop(cudaErrorLaunchFailure, out.str());
}

void checkpoint(BlockRun& b) {
    if (b.async && b.async->hit.active) report_hit(*b.async, b);
}

unsigned issue(BlockRun& b, char* dst, const char* src, std::size_t bytes, std::size_t zero_tail, const char* api,
               const char* file, int line, std::vector<unsigned char>* data) {
    AsyncState& s = state_of(b);
    if (!in_shared(b, dst, bytes)) {
        std::ostringstream out;
        const char* base = b.arena.get();
        out << "asynchronous copy outside shared memory " << where() << ":\n  at " << site(file, line) << "\n  "
            << api << " writes " << bytes << " bytes to ";
        if (dst >= base && dst < base + b.arena_used) {
            out << shared_place(b, dst) << ", past the end of the block's shared memory (" << b.arena_used
                << " bytes in use).";
        } else {
            out << "an address that is not in the block's shared memory: its destination must be a __shared__ "
                   "variable or extern __shared__ memory.";
        }
        stop(cudaErrorIllegalAddress, out.str());
    }
    if (src != nullptr) {
        const std::size_t read = bytes - zero_tail;
        const Allocation* a = find_allocation(src);
        const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(src);
        if (a == nullptr || (read > 0 && at + read > a->begin + a->bytes)) {
            std::ostringstream out;
            out << "out-of-bounds global memory access " << where() << ":\n  at " << site(file, line) << "\n  " << api
                << " reads " << read << " bytes from ";
            if (a == nullptr) {
                out << "an address in no cudaMalloc buffer: the source of an asynchronous copy into shared memory must "
                       "be global memory.";
            } else {
                out << "byte offset " << at - a->begin << " of a " << a->api << " buffer of " << a->bytes
                    << " bytes: they run " << at + read - (a->begin + a->bytes) << " bytes past its end.";
            }
            stop(cudaErrorIllegalAddress, out.str());
        }
    }
    const std::size_t offset = static_cast<std::size_t>(dst - b.arena.get());
    for (std::size_t i = 0; i < bytes; ++i) {
        if (s.owner[offset + i] != 0) {
            const Copy& other = s.copies[s.owner[offset + i] - 1];
            std::ostringstream out;
            out << "asynchronous copy into bytes another copy has yet to write, " << where() << ":\n  " << api << " at "
                << site(file, line) << " writes " << shared_place(b, dst + i) << ", which " << other.api
                << " issued at " << site(other.file, other.line) << " by " << thread_name(b, other.thread)
                << " has yet to write (" << completion(b, other)
                << ").\n  Which lands last is undefined on a GPU: wait for the first copy, and let every thread "
                   "finish with its bytes, before refilling them (a stage refilled before every consumer released it).";
            stop(cudaErrorLaunchFailure, out.str());
        }
    }
    Copy c;
    c.dst = dst;
    c.bytes = bytes;
    if (data != nullptr) {
        c.data = std::move(*data);
    } else {
        c.data.assign(bytes, 0);
        if (bytes > zero_tail) std::memcpy(c.data.data(), src, bytes - zero_tail);
    }
    c.api = api;
    c.file = file;
    c.line = line;
    c.thread = me(b);
    s.copies.push_back(std::move(c));
    const unsigned id = static_cast<unsigned>(s.copies.size() - 1);
    for (std::size_t i = 0; i < bytes; ++i) {
        s.owner[offset + i] = id + 1;
        s.landed[offset + i] = 0;  // a new copy: the old one's bytes are no more
    }
    ++s.in_flight;
    update_watch(s);
    return id;
}

[[noreturn]] void misaligned(const char* api, const char* file, int line, const std::string& rule) {
    stop(cudaErrorMisalignedAddress,
         "misaligned asynchronous copy " + where() + ":\n  " + api + " at " + site(file, line) + ": " + rule);
}

std::string address_text(const void* p) {
    char text[32];
    std::snprintf(text, sizeof text, "%p", p);
    return text;
}

// A synchronous copy, as libcu++ makes one when the alignment is below 4 bytes or the
// copy is not from global to shared memory: checked like any access.
void synchronous_copy(BlockRun& b, char* dst, const char* src, std::size_t bytes, const char* api, const char* file,
                      int line) {
    const bool dst_ok = in_shared(b, dst, bytes) || [&] {
        const Allocation* a = find_allocation(dst);
        return a != nullptr && reinterpret_cast<std::uintptr_t>(dst) + bytes <= a->begin + a->bytes;
    }();
    const bool src_ok = in_shared(b, src, bytes) || [&] {
        const Allocation* a = find_allocation(src);
        return a != nullptr && reinterpret_cast<std::uintptr_t>(src) + bytes <= a->begin + a->bytes;
    }();
    if (!dst_ok || !src_ok) {
        stop(cudaErrorIllegalAddress, "out-of-bounds memory access " + where() + ":\n  at " + site(file, line) + "\n  " +
                                          api + " copies " + std::to_string(bytes) + " bytes " +
                                          (!src_ok ? "from outside" : "to outside") +
                                          " the block's shared memory and the cudaMalloc buffers.");
    }
    std::memmove(dst, src, bytes);
}

// cp.async chunks of this thread's share of a group copy, or a synchronous copy. Returns
// the copies issued.
std::vector<unsigned> chunked_copy(BlockRun& b, char* dst, const char* src, std::size_t bytes, std::size_t align,
                                   unsigned rank, unsigned size, const char* api, const char* file, int line) {
    std::vector<unsigned> ids;
    const bool global_to_shared = find_allocation(src) != nullptr && b.arena.get() <= dst &&
                                  dst < b.arena.get() + b.arena_size;
    const std::size_t chunk = align > 16 ? 16 : align;
    if (align < 4 || !global_to_shared) {
        // libcu++'s fallback: each thread of the group copies its chunks itself, now.
        for (std::size_t at = std::size_t(rank) * chunk; at < bytes; at += std::size_t(size) * chunk) {
            synchronous_copy(b, dst + at, src + at, std::min(chunk, bytes - at), api, file, line);
        }
        return ids;
    }
    if (bytes % align != 0) {
        misaligned(api, file, line,
                   "the size, " + std::to_string(bytes) + " bytes, is not a multiple of " + std::to_string(align) +
                       ", the alignment its arguments promise (the element type's, or cuda::aligned_size_t's): the "
                       "last cp.async of " + std::to_string(chunk) + " bytes would run past the end.");
    }
    if (reinterpret_cast<std::uintptr_t>(dst) % align != 0 || reinterpret_cast<std::uintptr_t>(src) % align != 0) {
        misaligned(api, file, line,
                   "the " + std::string(reinterpret_cast<std::uintptr_t>(dst) % align ? "destination " : "source ") +
                       address_text(reinterpret_cast<std::uintptr_t>(dst) % align ? static_cast<const void*>(dst) : src) +
                       " is not aligned to " + std::to_string(align) +
                       " bytes, the alignment its arguments promise (the element type's, or cuda::aligned_size_t's).");
    }
    for (std::size_t at = std::size_t(rank) * chunk; at < bytes; at += std::size_t(size) * chunk) {
        ids.push_back(issue(b, dst + at, src + at, chunk, 0, api, file, line));
    }
    return ids;
}

BarrierState& lookup(BlockRun& b, void* address, const char* api, const char* file, int line) {
    AsyncState& s = state_of(b);
    auto found = s.barriers.find(address);
    if (found == s.barriers.end()) {
        stop(cudaErrorLaunchFailure, "cuda::barrier used before init() " + where() + ":\n  " + api + " at " +
                                         site(file, line) + " uses the barrier at " + shared_place(b, static_cast<char*>(address)) +
                                         ", which no thread has initialised. One thread calls init(&bar, count), then "
                                         "__syncthreads(), before any thread uses it.");
    }
    BarrierState& bar = found->second;
    if (bar.init_thread != me(b) && bar.init_epoch == s.epoch) {
        stop(cudaErrorLaunchFailure,
             "cuda::barrier used before init() was made visible " + where() + ":\n  " + api + " at " + site(file, line) +
                 " uses the barrier that " + thread_name(b, bar.init_thread) + " initialised at " +
                 site(bar.init_file, bar.init_line) +
                 ", with no __syncthreads() between: on a GPU this thread may see it uninitialised. Initialise it, "
                 "then __syncthreads(), then use it.");
    }
    return bar;
}

void wake(BlockRun& b, AsyncState& s, BarrierState& bar) {
    race_new_epoch();  // the waiting threads go on after what the arriving ones did (races.cpp)
    for (std::size_t i = 0; i < b.thread_count; ++i) {
        ThreadAsync& t = s.threads[i];
        if (t.waiting == &bar && bar.phase > t.target) {
            note_seen(s, static_cast<unsigned>(i), bar);
            t.waiting = nullptr;
            b.threads[i].status = Status::Ready;
        }
    }
}

void try_complete(BlockRun& b, AsyncState& s, BarrierState& bar) {
    if (bar.pending != 0 || bar.tx_expected != bar.tx_done) return;
    for (unsigned id : bar.copies) land(s, b, id);
    bar.copies.clear();
    ++bar.phase;
    bar.pending = bar.expected;
    bar.tx_expected = bar.tx_done = 0;
    bar.expect_file = bar.copy_file = nullptr;
    std::fill(bar.arrived.begin(), bar.arrived.end(), 0);
    wake(b, s, bar);
}

void attach(AsyncState& s, BarrierState& bar, unsigned id) {
    Copy& c = s.copies[id];
    c.via = Via::barrier;
    c.barrier = &bar;
    c.phase = bar.phase;
    bar.copies.push_back(id);
}

void block_on(BlockRun& b, BarrierState& bar, std::uint64_t target, const char* api, const char* file, int line) {
    AsyncState& s = state_of(b);
    ThreadState& t = *b.current;
    ThreadAsync& ta = s.threads[me(b)];
    ta.waiting = &bar;
    ta.target = target;
    ta.api = api;
    t.status = Status::AtAsync;
    t.file = file;
    t.line = line;
    b.used_barrier = true;
    t.fiber.suspend();
}

void do_yield(BlockRun& b, const char* file, int line) {
    ThreadState& t = *b.current;
    t.status = Status::Ready;
    t.file = file;
    t.line = line;
    b.used_barrier = true;
    t.fiber.suspend();
}

BlockRun& block(const char* what) {
    BlockRun& b = block_or_die(what);
    checkpoint(b);
    state_of(b);
    return b;
}

// Where the block's threads that are not waiting for @p bar are, for a hang's message.
std::string others(const BlockRun& b, const AsyncState& s, const BarrierState& bar) {
    return threads_by_place(b, [&](std::size_t i) {
        return b.threads[i].status == Status::AtAsync && s.threads[i].waiting == &bar;
    });
}

}  // namespace async_parts

// ---- Hooks of the scheduler ------------------------------------------------------------------

void async_begin_block(BlockRun& b) {
    if (!b.async) {
        async_watch = 0;
        return;
    }
    AsyncState& s = *b.async;
    s.copies.clear();
    s.barriers.clear();
    for (ThreadAsync& t : s.threads) t = ThreadAsync{};
    if (s.any_landed) std::fill(s.landed.begin(), s.landed.end(), 0);
    s.any_landed = false;
    s.epoch = 0;
    s.in_flight = 0;
    s.hit.active = false;
    if (s.any_sources) std::fill(s.sources.begin(), s.sources.end(), ChunkSource{});
    s.any_sources = false;
    update_watch(s);
}

void async_end_block(BlockRun& b) {
    if (!b.async) return;
    AsyncState& s = *b.async;
    for (const Copy& c : s.copies) {
        if (c.landed) continue;
        const std::size_t at = static_cast<std::size_t>(c.dst - b.arena.get());
        std::fill(s.owner.begin() + at, s.owner.begin() + at + c.bytes, 0);
    }
    if (s.any_landed) std::fill(s.landed.begin(), s.landed.end(), 0);
    s.any_landed = false;
    s.copies.clear();
    s.in_flight = 0;
    s.hit.active = false;
    update_watch(s);
}

void async_after_syncthreads(BlockRun& b) {
    if (!b.async) return;
    ++b.async->epoch;
    // Every thread has passed the barrier: what any thread saw complete before it, all see.
    for (auto& [address, bar] : b.async->barriers) bar.seen_at_sync = bar.seen_max;
}

void async_checkpoint(BlockRun& b) { checkpoint(b); }

void async_shared_access(const void* address, std::size_t bytes, const char* file, int line) {
    BlockRun* b = current_block;
    if (b == nullptr || b->current == nullptr || !b->async) return;
    AsyncState& s = *b->async;
    if (s.hit.active) report_hit(s, *b);
    const char* p = static_cast<const char*>(address);
    const char* base = b->arena.get();
    if (p < base || p + bytes > base + b->arena_size) return;
    const std::size_t at = static_cast<std::size_t>(p - base);
    for (std::size_t i = 0; i < bytes; ++i) {
        if (s.owner[at + i] != 0) {
            s.hit.active = true;
            s.hit.copy = s.owner[at + i] - 1;
            s.hit.address = const_cast<char*>(p);
            s.hit.bytes = bytes;
            std::memcpy(s.hit.before, p, std::min(bytes, sizeof s.hit.before));
            s.hit.file = file;  // null when the access came without its place: site() says so
            s.hit.line = line;
            s.hit.unseen = false;
            update_watch(s);
            return;
        }
    }
    if (!s.any_landed) return;
    const unsigned thread = me(*b);
    for (std::size_t i = 0; i < bytes; ++i) {
        if (s.landed[at + i] == 0) continue;
        const unsigned id = s.landed[at + i] - 1;
        const Copy& c = s.copies[id];
        if (seen_complete(s, thread, *c.barrier, c.phase)) continue;
        s.hit.active = true;
        s.hit.copy = id;
        s.hit.address = const_cast<char*>(p);
        s.hit.bytes = bytes;
        std::memcpy(s.hit.before, p, std::min(bytes, sizeof s.hit.before));
        s.hit.file = file;
        s.hit.line = line;
        s.hit.unseen = true;
        update_watch(s);
        return;
    }
}

namespace {

const char* waiting_call_in(const BlockRun* b, const ThreadState& t) {
    switch (t.status) {
        case Status::AtBarrier: return "__syncthreads()";
        case Status::AtClusterBarrier: return "cluster.sync()";
        case Status::AtWarp: return warp_op_name(t.warp_op);
        case Status::AtAsync: {
            if (b != nullptr && b->async) {
                const std::size_t i = static_cast<std::size_t>(&t - b->threads.data());
                if (i < b->async->threads.size() && b->async->threads[i].api != nullptr) return b->async->threads[i].api;
            }
            return "a barrier wait";
        }
        default: return "its next step";
    }
}

}  // namespace

const char* waiting_call(const BlockRun& b, const ThreadState& t) { return waiting_call_in(&b, t); }

const char* waiting_call(const ThreadState& t) { return waiting_call_in(current_block, t); }

void async_enter_block(BlockRun& b) {
    if (b.async) {
        update_watch(*b.async);
    } else {
        async_watch = 0;
    }
}

bool async_stuck(BlockRun& b) {
    if (!b.async) return false;
    AsyncState& s = *b.async;
    std::size_t first = b.thread_count;
    for (std::size_t i = 0; i < b.thread_count && first == b.thread_count; ++i) {
        if (b.threads[i].status == Status::AtAsync) first = i;
    }
    if (first == b.thread_count) return false;
    const ThreadState& t = b.threads[first];
    const ThreadAsync& ta = s.threads[first];
    const BarrierState& bar = *ta.waiting;
    std::size_t waiters = 0;
    for (std::size_t i = 0; i < b.thread_count; ++i) waiters += b.threads[i].status == Status::AtAsync && s.threads[i].waiting == &bar;
    std::ostringstream out;
    const bool arrivals_missing = bar.pending > 0;
    out << (bar.role == BarrierRole::pipeline_consumed
                ? "a pipeline stage refilled before every consumer released it"
                : bar.role == BarrierRole::pipeline_produced ? "a pipeline stage waited for that is never committed"
                : arrivals_missing ? "a barrier phase that can never complete"
                : bar.tx_done < bar.tx_expected ? "expected transaction bytes that never arrive"
                                                : "more transaction bytes than expected")
        << " (a hang on a GPU) in " << running_kernel() << ", block " << coordinates(blockIdx) << ", thread "
        << coordinates(t.index) << ":\n  " << waiters << (waiters == 1 ? " thread waits" : " threads wait") << " at "
        << ta.api << " at " << site(t.file, t.line) << " (the first is thread " << coordinates(t.index) << ") for ";
    if (bar.role == BarrierRole::pipeline_consumed) {
        out << "every consumer to release " << describe_barrier(bar) << " (consumer_release()), but " << bar.pending << " of its "
            << bar.expected << " consumer threads have not released it. A producer_acquire() waits until they have: "
            << "release each stage after its last use, in the order the stages were waited for.";
    } else if (bar.role == BarrierRole::pipeline_produced) {
        out << "every producer to commit " << describe_barrier(bar) << " (producer_commit()), but " << bar.pending
            << " of its " << bar.expected
            << " producer threads have not committed it: consumer_wait() is called more often than producer_commit().";
    } else {
        out << "phase " << bar.phase << " of " << describe_barrier(bar) << ", but ";
        if (arrivals_missing) {
            out << bar.pending << " of its " << bar.expected << " expected arrivals have not arrived";
            if (bar.tx_expected != bar.tx_done) out << ", and ";
        }
        if (bar.tx_done < bar.tx_expected) {
            out << "its expected transaction bytes never arrive: " << bar.tx_expected << " bytes are expected (the last "
                << "at " << site(bar.expect_file, bar.expect_line) << ") and copies delivered " << bar.tx_done;
            if (bar.copy_file != nullptr) out << " (the last issued at " << site(bar.copy_file, bar.copy_line) << ")";
            out << ": the byte count given to barrier_arrive_tx() must equal the bytes its TMA and bulk copies deliver "
                   "(a cuda::memcpy_async with a barrier expects its own bytes)";
        } else if (bar.tx_done > bar.tx_expected) {
            out << "more transaction bytes arrived than expected: copies delivered " << bar.tx_done << " bytes (the last "
                << "issued at " << site(bar.copy_file, bar.copy_line) << ") and only " << bar.tx_expected
                << " were expected";
            if (bar.expect_file != nullptr) out << " (at " << site(bar.expect_file, bar.expect_line) << ")";
            out << ": the byte count given to barrier_arrive_tx() must equal the bytes its TMA and bulk copies deliver "
                   "(a cuda::memcpy_async with a barrier expects its own bytes)";
        }
        out << ".";
    }
    const std::string elsewhere = others(b, s, bar);
    if (!elsewhere.empty()) out << "\n  The block's other threads:" << elsewhere;
    b.faulted = true;
    b.fault = KernelFault{cudaErrorLaunchFailure, out.str()};
    return true;
}

}  // namespace detail
}  // namespace emu
