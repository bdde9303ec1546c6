// Non-atomic read-modify-writes by several threads of a block (`bins[v] += 1`).
//
// The threads of a block run one at a time between synchronisations, so such an update is
// never lost here, in any thread order; on a GPU the threads of a warp load together and
// store together, and updates are lost. So every checked access (a kernel's pointer
// parameters, __shared__ arrays) is noted in a small table, by address: which thread
// touched the word last in the current epoch, and the value it found. An epoch ends
// whenever threads synchronise (a barrier, a warp primitive, a barrier phase completing):
// every new round of the scheduler and every wake-up starts a new one.
//
// An access cannot tell a load from a store (it returns a reference), so a change is seen
// at the next access to the word: the value differs from the one the previous thread found,
// so that thread wrote it. When two different threads have both changed the word in one
// epoch, neither with an atomic, the updates race. Threads that all store the same value
// (a flag) change nothing, and an atomic's change (check_shared_atomic() marks it) is not
// counted, so neither is reported.
#include "block.h"

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

namespace emu {
namespace detail {
namespace {

struct WordRecord {
    const void* address = nullptr;
    unsigned long long epoch = 0;
    const ThreadState* owner = nullptr;  ///< the last thread that accessed it in the epoch
    std::uint64_t found = 0;             ///< the value that thread found
    std::size_t size = 0;
    bool atomic = false;                 ///< the owner's access was an atomic's
    const char* file = nullptr;          ///< where the owner accessed it
    int line = 0;
    // The thread that changed it earlier in the epoch without an atomic (null: none).
    const ThreadState* changer = nullptr;
    uint3 changer_index{0, 0, 0};
    const char* changer_file = nullptr;
    int changer_line = 0;
};

constexpr std::size_t kTableSize = 4096;
constexpr unsigned long long kRaceCheckedBlocks = 2;  // blocks checked per launch: 0 and 1  // a power of two; a collision only forgets a word

thread_local unsigned long long epoch = 1;
thread_local WordRecord* table = nullptr;

std::uint64_t value_at(const void* address, std::size_t size) {
    std::uint64_t value = 0;
    std::memcpy(&value, address, size);
    return value;
}

WordRecord& slot(const void* address) {
    if (table == nullptr) table = new WordRecord[kTableSize];  // lives as long as its worker thread
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(address);
    return table[(at >> 2 ^ at >> 14) & (kTableSize - 1)];
}

std::string word_name(const BlockRun& b, const void* address, std::size_t size, const char* name, const void* base) {
    const char* at = static_cast<const char*>(address);
    std::ostringstream out;
    if (base == nullptr) {  // a __shared__ variable: look it up
        for (const SharedVariable& v : b.variables) {
            if (at >= v.address && at < v.address + v.bytes) {
                name = v.name;
                base = v.address;
            }
        }
    }
    const bool shared = at >= b.arena.get() && at < b.arena.get() + b.arena_size;
    out << (shared ? "shared" : "global") << " word ";
    if (name != nullptr && base != nullptr) {
        out << name << "[" << (at - static_cast<const char*>(base)) / static_cast<std::ptrdiff_t>(size) << "]";
    } else {
        out << "at " << address;
    }
    return out.str();
}

}  // namespace

__thread bool race_checked = false;

void race_new_epoch() { ++epoch; }

void race_start_block(const GridRun& run, unsigned long long linear) {
    // A lost update happens in every block that counts, so the first blocks suffice; and in
    // any order, so the first run suffices. The check costs about as much as the access.
    const Schedule& first = schedules()[0];
    race_checked = linear < kRaceCheckedBlocks && run.schedule.kind == first.kind && run.schedule.seed == first.seed;
    ++epoch;
}

void race_access(const void* address, std::size_t size, const char* name, const void* base, const char* file,
                 int line) {
    BlockRun* b = current_block;
    if (b == nullptr || b->current == nullptr || size > sizeof(std::uint64_t)) return;
    WordRecord& r = slot(address);
    const std::uint64_t now = value_at(address, size);
    if (r.address != address || r.epoch != epoch || r.size != size) {
        r = WordRecord{address, epoch, b->current, now, size, false, file, line};
        return;
    }
    if (r.owner != b->current && now != r.found && !r.atomic) {
        // The previous thread changed the word with a plain store.
        if (r.changer != nullptr && r.changer != r.owner) {
            std::ostringstream out;
            // The check sees each access before it happens, not whether it reads or writes:
            // the same report fits two threads storing into one element (an index that maps
            // two threads to it) and two adding to it (a lost update); it names both.
            // Where each access is written, when the backend was told (not through a cast pointer).
            const auto at = [](const char* file, int line) {
                return file != nullptr && line > 0 ? " at " + std::string(file) + ":" + std::to_string(line) : std::string();
            };
            out << "race in " << running_kernel() << ": two threads of block " << coordinates(blockIdx) << " changed "
                << word_name(*b, address, size, name, base) << at(r.file, r.line)
                << " without an atomic and with no __syncthreads() (or other synchronisation) between.\n  Thread "
                << coordinates(r.changer_index) << " changed it" << at(r.changer_file, r.changer_line) << ", then thread "
                << coordinates(r.owner->index) << at(r.file, r.line) << ". If each stores a value of its own there, their elements collide: the index maps two threads "
                   "to one element (check how a thread's index, or its lane's accumulator, becomes an element), and "
                   "which value remains is not defined. If each adds to what it read (bins[v] += 1), a "
                   "read-modify-write that is not atomic loses updates: the lanes of a warp on a GPU load the word "
                   "together and store together, and all but one increment vanish (here the threads ran one at a "
                   "time, so none was lost); use atomicAdd() (on a __shared__ copy per block, then merged into "
                   "global memory), or give each thread a word of its own.";
            throw KernelFault{cudaErrorLaunchFailure, out.str()};
        }
        r.changer = r.owner;
        r.changer_index = r.owner->index;
        r.changer_file = r.file;
        r.changer_line = r.line;
    }
    r.owner = b->current;
    r.found = now;
    r.atomic = false;
    r.file = file;
    r.line = line;
}

void race_atomic(const void* address, std::size_t size) {
    BlockRun* b = current_block;
    if (b == nullptr || b->current == nullptr) return;
    WordRecord& r = slot(address);
    if (r.address != address || r.epoch != epoch || r.size != size) return;
    // Whoever touched it before, the change that the next access sees is this atomic's.
    r.owner = b->current;
    r.atomic = true;
}

}  // namespace detail
}  // namespace emu
