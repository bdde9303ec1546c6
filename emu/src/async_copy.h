// What the two halves of the asynchronous copies share: async_copy.cpp (commit groups,
// mbarrier phases, pipelines, and the checks of every access against copies in flight) and
// tma.cpp (tensor maps, bulk and TMA copies). Internal to emu/src.
#pragma once

#include "block.h"
#include "traffic_hooks.h"
#include <cuda.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <sstream>
#include <unordered_map>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace emu {
namespace detail {

// The state of the copies of one block, and the helpers both halves call.
namespace async_parts {


using async::BarrierRole;

struct BarrierState;

// How a copy completes.
enum class Via { open_group, group, stage_open, barrier };

struct Copy {
    char* dst;
    std::size_t bytes;
    std::vector<unsigned char> data;  // what lands
    const char* api;
    const char* file;
    int line;
    unsigned thread;  // the issuing thread's linear index
    Via via = Via::open_group;
    const BarrierState* barrier = nullptr;
    std::uint64_t phase = 0;
    bool landed = false;
    // A TMA copy: the tensor map's global address and swizzle span in bytes (0: none), for
    // the wgmma's check that its descriptor reads the tile as the copy wrote it (wgmma.cpp).
    std::uint64_t tensor = 0;
    unsigned swizzle_bytes = 0;
};

// Which element of which tensor a TMA copy wrote at the start of one 16-byte chunk of
// shared memory (a chunk holds consecutive elements of one box row, the swizzle moves
// whole chunks): what wgmma.cpp compares its descriptors' reading with.
struct ChunkSource {
    unsigned copy = 0;  // the copy + 1; 0: no TMA copy wrote the chunk in this block
    long long x = 0, y = 0;  // the tensor coordinates of its first element (innermost first)
};

struct Group {
    std::vector<unsigned> copies;
    const char* file;
    int line;
};

struct BarrierState {
    const void* address = nullptr;
    BarrierRole role = BarrierRole::user;
    unsigned stage = 0;
    std::ptrdiff_t expected = 0, pending = 0;
    std::int64_t tx_expected = 0, tx_done = 0;
    std::uint64_t phase = 0;
    std::vector<unsigned> copies;  // land when the phase completes
    const char* init_file = nullptr;
    int init_line = 0;
    unsigned init_thread = 0;
    std::uint64_t init_epoch = 0;
    const char* expect_file = nullptr;  // the last transaction bytes expected this phase
    int expect_line = 0;
    const char* copy_file = nullptr;  // the last copy that delivered bytes this phase
    int copy_line = 0;
    std::vector<unsigned char> arrived;  // per thread, this phase
    std::uint64_t seen_max = 0;      // the most phases any thread has seen complete (its waits returned)
    std::uint64_t seen_at_sync = 0;  // seen_max at the block's last __syncthreads(): every thread's since
};

struct ThreadAsync {
    std::vector<unsigned> open;        // cp.async copies not yet committed
    std::deque<Group> committed;       // committed groups not yet complete
    std::vector<unsigned> stage_open;  // block-scope pipeline copies not yet committed
    BarrierState* waiting = nullptr;   // what it waits for, when AtAsync ...
    std::uint64_t target = 0;          // ... the phase that must complete
    const char* api = nullptr;
    // Per barrier, the phases this thread has seen complete (its waits on it returned):
    // the copies of a later phase have landed, but not for this thread.
    std::vector<std::pair<const BarrierState*, std::uint64_t>> seen;
};

// An access to bytes a copy had yet to write, reported at the thread's next call.
struct Hit {
    bool active = false;
    unsigned copy = 0;
    char* address = nullptr;
    std::size_t bytes = 0;
    unsigned char before[32];
    const char* file = nullptr;
    int line = 0;
    bool unseen = false;  // the copy had landed, in a barrier phase this thread never waited for
};


}  // namespace async_parts
using namespace async_parts;

struct AsyncState {
    std::vector<Copy> copies;
    std::vector<std::uint32_t> owner;  // per arena byte: the copy that will write it, + 1
    // Per arena byte: the copy completed by a barrier phase that wrote it last, + 1. A thread
    // may read it only once it has waited for that phase itself, or another thread had
    // before a __syncthreads() this thread has passed (a stage read that was not the one
    // waited for: its copy may land on a GPU at any time until then).
    std::vector<std::uint32_t> landed;
    bool any_landed = false;  // some byte of landed is set
    std::vector<ThreadAsync> threads;
    std::unordered_map<const void*, BarrierState> barriers;
    std::uint64_t epoch = 0;  // __syncthreads() passed by the block
    std::size_t in_flight = 0;
    Hit hit;
    // Per 16-byte chunk of the arena, what a TMA copy wrote there (made at the block's first
    // TMA copy; any_sources: some entry is set).
    std::vector<ChunkSource> sources;
    bool any_sources = false;
};

namespace async_parts {

AsyncState& state_of(BlockRun& b);
std::string site(const char* file, int line);
std::string shared_place(const BlockRun& b, const char* p);
bool in_shared(const BlockRun& b, const char* p, std::size_t bytes);
std::string completion(const BlockRun& b, const Copy& c);
std::string address_text(const void* p);
BarrierState& lookup(BlockRun& b, void* address, const char* api, const char* file, int line);
void try_complete(BlockRun& b, AsyncState& s, BarrierState& bar);
void attach(AsyncState& s, BarrierState& bar, unsigned id);
BlockRun& block(const char* what);
std::string where();
unsigned me(const BlockRun& b);  // the running thread's index in its block
void note_seen(AsyncState& s, unsigned thread, BarrierState& bar);
std::string describe_barrier(const BarrierState& bar);
void land(AsyncState& s, BlockRun& b, unsigned id);
// cp.async chunks of this thread's share of a group copy, or a synchronous copy. Returns
// the copies issued.
std::vector<unsigned> chunked_copy(BlockRun& b, char* dst, const char* src, std::size_t bytes, std::size_t align,
                                   unsigned rank, unsigned size, const char* api, const char* file, int line);
void block_on(BlockRun& b, BarrierState& bar, std::uint64_t target, const char* api, const char* file, int line);
void do_yield(BlockRun& b, const char* file, int line);
[[noreturn]] void stop(cudaError_t code, const std::string& message);
std::string thread_name(const BlockRun& b, unsigned t);
[[noreturn]] void misaligned(const char* api, const char* file, int line, const std::string& rule);
// The checks every copy makes, then the copy itself, marked in flight. @p data is what
// lands (read from @p src when null).
unsigned issue(BlockRun& b, char* dst, const char* src, std::size_t bytes, std::size_t zero_tail, const char* api,
               const char* file, int line, std::vector<unsigned char>* data = nullptr);
// Report the access noted in s.hit (a read when its bytes are as they were, else a write);
// @p reader, when given, names the instruction that read them ("wgmma.mma_async").
[[noreturn]] void report_hit(AsyncState& s, BlockRun& b, const char* reader = nullptr);

}  // namespace async_parts
}  // namespace detail
}  // namespace emu
