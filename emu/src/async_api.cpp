// The asynchronous-copy API the CUDA headers of the CPU backend call: cp.async primitives and
// cooperative groups' memcpy_async, commit groups and waits, cuda::barrier (mbarrier) phases and
// cuda::pipeline stages (async_copy.h: what it shares with async_copy.cpp's checks).
#include "async_copy.h"

namespace emu {
// ---- The API -----------------------------------------------------------------------------------
namespace async {
using namespace ::emu::detail;

void primitive_copy(void* dst, const void* src, std::size_t size, std::size_t zfill, const char* file,
                           int line) {
    BlockRun& b = block("__pipeline_memcpy_async()");
    check_time(file, line);
    const char* api = "__pipeline_memcpy_async()";
    if (size != 4 && size != 8 && size != 16) {
        misaligned(api, file, line, "a cp.async copies 4, 8 or 16 bytes, not " + std::to_string(size) + ".");
    }
    if (zfill > size) {
        stop(cudaErrorLaunchFailure, "invalid asynchronous copy " + where() + ":\n  " + api + " at " + site(file, line) +
                                         ": zfill, " + std::to_string(zfill) + ", is more than the " +
                                         std::to_string(size) + " bytes copied.");
    }
    if (reinterpret_cast<std::uintptr_t>(dst) % size != 0 || reinterpret_cast<std::uintptr_t>(src) % size != 0) {
        const bool bad_dst = reinterpret_cast<std::uintptr_t>(dst) % size != 0;
        misaligned(api, file, line,
                   std::string("the ") + (bad_dst ? "shared destination " : "global source ") +
                       address_text(bad_dst ? dst : src) + " is not aligned to " + std::to_string(size) +
                       " bytes: a cp.async of " + std::to_string(size) +
                       " bytes needs both addresses aligned to its size.");
    }
    AsyncState& s = state_of(b);
    const unsigned id = issue(b, static_cast<char*>(dst), static_cast<const char*>(src), size, zfill, api, file, line);
    s.threads[me(b)].open.push_back(id);
    traffic::detail::note_async_copy(traffic::detail::AsyncTraffic::cp_async, src, size - zfill, dst, size, file, line);
}

void group_copy(void* dst, const void* src, std::size_t bytes, std::size_t align, unsigned rank, unsigned size,
                       const char* api, const char* file, int line) {
    BlockRun& b = block(api);
    check_time(file, line);
    AsyncState& s = state_of(b);
    for (unsigned id : chunked_copy(b, static_cast<char*>(dst), static_cast<const char*>(src), bytes, align, rank, size,
                                    api, file, line)) {
        s.threads[me(b)].open.push_back(id);
        const Copy& c = s.copies[id];
        traffic::detail::note_async_copy(traffic::detail::AsyncTraffic::cp_async,
                                         static_cast<const char*>(src) + (c.dst - static_cast<char*>(dst)), c.bytes, c.dst,
                                         c.bytes, file, line);
    }
}

void group_commit(const char*, const char* file, int line) {
    BlockRun& b = block("__pipeline_commit()");
    AsyncState& s = state_of(b);
    ThreadAsync& t = s.threads[me(b)];
    for (unsigned id : t.open) s.copies[id].via = Via::group;
    t.committed.push_back(Group{std::move(t.open), file, line});
    t.open.clear();
}

void group_wait_prior(std::size_t prior, bool strict, const char* api, const char* file, int line) {
    BlockRun& b = block(api);
    check_time(file, line);
    AsyncState& s = state_of(b);
    ThreadAsync& t = s.threads[me(b)];
    const std::size_t groups = t.committed.size();
    if (strict && prior >= groups && (groups > 0 || !t.open.empty())) {
        std::ostringstream out;
        out << "a wait for more stages than were committed " << where() << ":\n  " << api << " at " << site(file, line)
            << " waits until at most " << prior << " committed groups of this thread are in flight, but ";
        if (groups > 0) {
            out << "only " << groups << (groups == 1 ? " is" : " are") << " (the last committed at "
                << site(t.committed.back().file, t.committed.back().line)
                << "), so it waits for none of them. Wait for one stage fewer than are in flight, and drain the "
                   "last stages (a wait with 0) before reading them. If the count waited for is the one the "
                   "pipeline needs, a commit was skipped: commit once per stage even when the stage copies "
                   "nothing (an empty group keeps the count), not only inside the `if` that starts its copies.";
        } else {
            const Copy& c = s.copies[t.open.front()];
            out << "none is: the copies issued since the last commit (the first at " << site(c.file, c.line)
                << ") are not committed, and a wait never completes copies that no commit closed. Commit "
                   "(__pipeline_commit(), producer_commit()) before waiting.";
        }
        stop(cudaErrorLaunchFailure, out.str());
    }
    while (t.committed.size() > prior) {
        for (unsigned id : t.committed.front().copies) land(s, b, id);
        t.committed.pop_front();
    }
}

void nothing_committed(const char* api, const char* file, int line) {
    block_or_die(api);
    stop(cudaErrorLaunchFailure,
         "a wait for more stages than were committed " + where() + ":\n  " + std::string(api) + " at " +
             site(file, line) +
             " on a cuda::pipeline<cuda::thread_scope_thread> finds no committed stage left to wait for: every "
             "producer_commit() so far has been waited for, so it returns at once and waits for nothing.");
}

void barrier_init(void* address, std::ptrdiff_t count, BarrierRole role, unsigned stage, const char* file,
                         int line) {
    BlockRun& b = block("init(&barrier, count)");
    AsyncState& s = state_of(b);
    const char* api = role == BarrierRole::user ? "init()" : "cuda::make_pipeline()";
    if (!in_shared(b, static_cast<char*>(address), 8)) {
        stop(cudaErrorLaunchFailure, "cuda::barrier outside shared memory " + where() + ":\n  " + api + " at " +
                                         site(file, line) +
                                         ": the CPU backend supports block-scope barriers in shared memory only "
                                         "(declare them __shared__).");
    }
    if (count < 1 || count > (1 << 20) - 1) {
        stop(cudaErrorLaunchFailure, "invalid barrier count " + where() + ":\n  " + api + " at " + site(file, line) +
                                         ": the expected count, " + std::to_string(count) +
                                         ", must be from 1 to 2^20 - 1.");
    }
    auto found = s.barriers.find(address);
    if (found != s.barriers.end() && found->second.init_epoch == s.epoch && found->second.init_thread != me(b)) {
        const BarrierState& old = found->second;
        stop(cudaErrorLaunchFailure,
             "cuda::barrier initialised by two threads " + where() + ":\n  " + api + " at " + site(file, line) +
                 " initialises the barrier at " + shared_place(b, static_cast<char*>(address)) + " that " +
                 thread_name(b, old.init_thread) + " initialised at " + site(old.init_file, old.init_line) +
                 ", with no __syncthreads() between: on a GPU one initialisation may undo the arrivals the other "
                 "counted. Let one thread initialise it (if (threadIdx.x == 0) init(&bar, count);), then "
                 "__syncthreads().");
    }
    BarrierState& bar = s.barriers[address];
    for (std::size_t i = 0; i < b.thread_count; ++i) {
        if (s.threads[i].waiting == &bar) s.threads[i].waiting = nullptr;  // never: nobody waits before init
    }
    bar = BarrierState{};
    bar.address = address;
    bar.role = role;
    bar.stage = stage;
    bar.expected = bar.pending = count;
    bar.init_file = file;
    bar.init_line = line;
    bar.init_thread = me(b);
    bar.init_epoch = s.epoch;
    bar.arrived.assign(b.thread_count, 0);
}

Token barrier_arrive(void* address, std::ptrdiff_t update, std::ptrdiff_t tx, const char* api,
                                   const char* file, int line) {
    BlockRun& b = block(api);
    check_time(file, line);
    AsyncState& s = state_of(b);
    BarrierState& bar = lookup(b, address, api, file, line);
    if (tx < 0 || tx > (1 << 20) - 1) {
        stop(cudaErrorLaunchFailure, "invalid transaction count " + where() + ":\n  " + std::string(api) + " at " +
                                         site(file, line) + ": " + std::to_string(tx) +
                                         " bytes; the count must be from 0 to 2^20 - 1.");
    }
    if (tx > 0 && bar.tx_expected == 0 && bar.phase > bar.seen_max && bar.role == BarrierRole::user) {
        // The first bytes of a phase, and no thread has waited for the last one: what it
        // brought was never read, and this phase's copies write over it.
        std::ostringstream out;
        out << "a stage refilled before anybody waited for its last fill " << where() << ":\n  " << api << " at "
            << site(file, line) << " expects " << tx << " bytes in phase " << bar.phase << " of " << describe_barrier(bar)
            << ", but no thread has waited for its phase " << bar.phase - 1
            << " (none of its waits has returned since that phase completed): the bytes that phase brought were never "
               "read, and this phase's copies write over them. On a GPU that is a wrong result or a hang. A producer "
               "refills a stage only after every consumer has released it: wait on the stage's `empty` barrier for the "
               "release of its previous fill first.";
        stop(cudaErrorLaunchFailure, out.str());
    }
    if (tx > 0) {
        bar.tx_expected += tx;
        bar.expect_file = file;
        bar.expect_line = line;
    }
    const Token token{address, bar.phase};
    if (update > 0) {
        if (update > bar.pending) {
            std::ostringstream out;
            out << "more arrivals than a barrier expects " << where() << ":\n  " << api << " at " << site(file, line)
                << " arrives " << update << (update == 1 ? " time" : " times") << " at phase " << bar.phase << " of "
                << describe_barrier(bar) << ", which awaits only " << bar.pending
                << " more: the count given to init() must be the number of arrivals of each phase.";
            stop(cudaErrorLaunchFailure, out.str());
        }
        bar.pending -= update;
        bar.arrived[me(b)] = 1;
        try_complete(b, s, bar);
    } else if (tx > 0) {
        try_complete(b, s, bar);
    }
    return token;
}

void barrier_drop(void* address, const char* file, int line) {
    BlockRun& b = block("arrive_and_drop()");
    BarrierState& bar = lookup(b, address, "arrive_and_drop()", file, line);
    --bar.expected;
    (void)barrier_arrive(address, 1, 0, "arrive_and_drop()", file, line);
}

void barrier_wait(void* address, Token token, const char* api, const char* file, int line) {
    BlockRun& b = block(api);
    check_time(file, line);
    BarrierState& bar = lookup(b, address, api, file, line);
    if (token.barrier != address) {
        stop(cudaErrorLaunchFailure,
             "barrier wait with a foreign token " + where() + ":\n  " + std::string(api) + " at " + site(file, line) +
                 (token.barrier == nullptr ? " is given a token that no arrive() returned."
                                           : " is given the token of another barrier's arrive().") +
                 " Wait with the token this barrier's arrive() returned.");
    }
    if (bar.phase > token.phase) {
        note_seen(state_of(b), me(b), bar);
        return;
    }
    block_on(b, bar, token.phase, api, file, line);
}

void barrier_wait_parity(void* address, bool parity, const char* api, const char* file, int line) {
    BlockRun& b = block(api);
    check_time(file, line);
    BarrierState& bar = lookup(b, address, api, file, line);
    if ((bar.phase & 1u) != static_cast<unsigned>(parity)) {  // the phase of that parity has completed
        AsyncState& s = state_of(b);
        const auto& seen = s.threads[me(b)].seen;  // by this thread's own waits only
        const auto mine = std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == &bar; });
        if (bar.role == BarrierRole::user && bar.phase > 0 && mine != seen.end() && mine->second == bar.phase) {
            // This thread's waits have already returned for that very phase: a parity meant
            // for the next phase would block; this one looks back at one already consumed.
            std::ostringstream out;
            out << "a wait for a barrier phase this thread has already waited for " << where() << ":\n  " << api
                << " at " << site(file, line) << " with parity " << parity << " returns at once, for phase "
                << bar.phase - 1 << " of " << describe_barrier(bar) << ", which has completed, but which this thread "
                << "had already waited for. A wait for the next phase, " << bar.phase << " (parity " << bar.phase % 2
                << "), would block until it completes; this one lets the thread read again what phase " << bar.phase - 1
                << " brought (a stage's old contents), while its next fill may be on its way. Derive each wait's phase "
                   "from a count of the steps that runs on from one tile to the next, never from one that restarts.";
            stop(cudaErrorLaunchFailure, out.str());
        }
        note_seen(s, me(b), bar);
        return;
    }
    block_on(b, bar, bar.phase, api, file, line);
}

void barrier_copy(void* dst, const void* src, std::size_t bytes, std::size_t align, unsigned rank,
                         unsigned size, void* address, const char* api, const char* file, int line) {
    BlockRun& b = block(api);
    check_time(file, line);
    AsyncState& s = state_of(b);
    BarrierState& bar = lookup(b, address, api, file, line);
    char* d = static_cast<char*>(dst);
    const char* from = static_cast<const char*>(src);
    const bool global_to_shared =
        find_allocation(src) != nullptr && b.arena.get() <= d && d < b.arena.get() + b.arena_size;
    if (align >= 16 && global_to_shared) {
        // One cp.async.bulk by the group's first thread, its bytes expected and delivered
        // on the barrier by libcu++ itself.
        if (rank != 0) return;
        if (bytes % 16 != 0) {
            misaligned(api, file, line, "a bulk copy's size must be a multiple of 16 bytes, not " + std::to_string(bytes) +
                                            " (the alignment of its arguments promises it).");
        }
        if (reinterpret_cast<std::uintptr_t>(d) % 16 != 0 || reinterpret_cast<std::uintptr_t>(from) % 16 != 0) {
            const bool bad_dst = reinterpret_cast<std::uintptr_t>(d) % 16 != 0;
            misaligned(api, file, line,
                       std::string("the ") + (bad_dst ? "shared destination " : "global source ") +
                           address_text(bad_dst ? static_cast<const void*>(d) : from) +
                           " of a bulk copy is not 16-byte aligned (the alignment of its arguments promises it).");
        }
        const unsigned id = issue(b, d, from, bytes, 0, api, file, line);
        attach(s, bar, id);
        // libcu++ expects the bytes itself (mbarrier.expect_tx), and the copy delivers them.
        bar.tx_expected += static_cast<std::int64_t>(bytes);
        bar.tx_done += static_cast<std::int64_t>(bytes);
        bar.expect_file = bar.copy_file = file;
        bar.expect_line = bar.copy_line = line;
        traffic::detail::note_async_copy(traffic::detail::AsyncTraffic::bulk, from, bytes, d, bytes, file, line);
        return;
    }
    for (unsigned id : chunked_copy(b, d, from, bytes, align, rank, size, api, file, line)) {
        attach(s, bar, id);
        const Copy& c = s.copies[id];
        traffic::detail::note_async_copy(traffic::detail::AsyncTraffic::cp_async, from + (c.dst - d), c.bytes, c.dst,
                                         c.bytes, file, line);
    }
}

void bulk_copy(void* dst, const void* src, std::size_t bytes, void* address, const char* api, const char* file,
                      int line) {
    BlockRun& b = block(api);
    check_time(file, line);
    AsyncState& s = state_of(b);
    BarrierState& bar = lookup(b, address, api, file, line);
    if (bytes % 16 != 0) {
        misaligned(api, file, line, "a bulk copy's size must be a multiple of 16 bytes, not " + std::to_string(bytes) + ".");
    }
    if (reinterpret_cast<std::uintptr_t>(dst) % 16 != 0 || reinterpret_cast<std::uintptr_t>(src) % 16 != 0) {
        const bool bad_dst = reinterpret_cast<std::uintptr_t>(dst) % 16 != 0;
        misaligned(api, file, line,
                   std::string("the ") + (bad_dst ? "shared destination " : "global source ") +
                       address_text(bad_dst ? dst : src) + " of a bulk copy is not 16-byte aligned.");
    }
    const unsigned id = issue(b, static_cast<char*>(dst), static_cast<const char*>(src), bytes, 0, api, file, line);
    attach(s, bar, id);
    bar.tx_done += static_cast<std::int64_t>(bytes);
    bar.copy_file = file;
    bar.copy_line = line;
    traffic::detail::note_async_copy(traffic::detail::AsyncTraffic::bulk, src, bytes, dst, bytes, file, line);
    try_complete(b, s, bar);
}

void pipeline_copy(void* dst, const void* src, std::size_t bytes, std::size_t align, unsigned rank,
                          unsigned size, bool acquired, const void*, const char* api, const char* file, int line) {
    BlockRun& b = block(api);
    check_time(file, line);
    AsyncState& s = state_of(b);
    if (!acquired) {
        stop(cudaErrorLaunchFailure,
             "a pipeline stage refilled before every consumer released it " + where() + ":\n  " + std::string(api) +
                 " at " + site(file, line) +
                 " copies into a block-scope cuda::pipeline without producer_acquire(): the stage it fills may still "
                 "be read by consumers that have not released it. Call producer_acquire() before the stage's copies, "
                 "producer_commit() after them.");
    }
    for (unsigned id : chunked_copy(b, static_cast<char*>(dst), static_cast<const char*>(src), bytes, align, rank, size,
                                    api, file, line)) {
        s.copies[id].via = Via::stage_open;
        s.threads[me(b)].stage_open.push_back(id);
        const Copy& c = s.copies[id];
        traffic::detail::note_async_copy(traffic::detail::AsyncTraffic::cp_async,
                                         static_cast<const char*>(src) + (c.dst - static_cast<char*>(dst)), c.bytes, c.dst,
                                         c.bytes, file, line);
    }
}

void pipeline_commit(void* produced, const char* file, int line) {
    BlockRun& b = block("producer_commit()");
    AsyncState& s = state_of(b);
    BarrierState& bar = lookup(b, produced, "producer_commit()", file, line);
    ThreadAsync& t = s.threads[me(b)];
    for (unsigned id : t.stage_open) attach(s, bar, id);
    t.stage_open.clear();
    (void)barrier_arrive(produced, 1, 0, "producer_commit()", file, line);
}

void pipeline_wait_uncommitted(unsigned waits, unsigned commits, const char* file, int line) {
    block_or_die("consumer_wait()");
    stop(cudaErrorLaunchFailure,
         "a wait for more stages than were committed " + where() + ":\n  consumer_wait() at " + site(file, line) +
             " waits for stage number " + std::to_string(waits) + " of a block-scope cuda::pipeline, but this thread "
             "has committed only " + std::to_string(commits) + (commits == 1 ? " stage" : " stages") +
             " (producer_commit()): the stage needs its commit, so on a GPU the thread waits for itself forever.");
}

void yield(const char* file, int line) {
    BlockRun& b = block("a pipeline call");
    do_yield(b, file, line);
}

unsigned block_thread_rank() {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}

unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }

void block_sync(const char* file, int line) { syncthreads(file, line); }

}  // namespace async
}  // namespace emu
