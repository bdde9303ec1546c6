// Hopper's warpgroup MMA on the CPU backend: wgmma.mma_async with both operands in shared
// memory, read through their matrix descriptors, and wgmma.fence, wgmma.commit_group and
// wgmma.wait_group; and setmaxnreg, which moves no register on the CPU but is checked to be
// executed by every lane of the 4 warps of a warpgroup alike.
//
// A warpgroup is 4 consecutive warps (threads 128g to 128g + 127). Each warp of it holds 16
// rows of the 64 × N result, in the layout of mma.sync's C fragment repeated every 8
// columns (PTX ISA, "Register Fragments", accumulator D of wgmma .m64nNk16), so each warp's
// lanes meet on their own (warp.cpp) and compute their rows when all 32 are there.
//
// The result is computed then, from shared memory as it is, but reaches the thread's
// registers only when a wgmma.wait_group completes its group; until then the registers
// hold a NaN poison. So, as on a GPU, accumulators read before the wait are wrong, and the
// backend reports what it can see of it: a wgmma issued without a wgmma.fence since the
// thread could touch its registers, registers written while a wgmma is in flight, wgmmas
// still in flight (never committed, never waited for) when the thread ends, and a TMA copy
// that refills shared memory a wgmma in flight still reads.
//
// The descriptors follow the PTX ISA ("Matrix Descriptor Format", "Shared Memory Matrix
// Layout"): the 128-byte swizzle, K-major or MN-major, base offset 0. Each element the
// descriptor reads is checked against what the TMA wrote there (AsyncState::sources), so
// that a descriptor whose swizzle or strides do not match the tensor map's is named.
#include "async_copy.h"

#include "emu/tensor_core.h"
#include <gpu_model/traffic.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <sstream>

namespace emu {
namespace detail {

namespace {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kWarpgroup = 128;

// One wgmma.mma_async of one thread, in flight.
struct PendingWgmma {
    float* registers;           // the thread's accumulators
    unsigned n;                 // how many (half the wgmma's N)
    std::vector<float> result;  // what reaches them at the wait
    const char* file;
    int line;
    unsigned sequence;  // the thread's count of wgmmas before it: its warpgroup's wgmma
};

struct CommittedGroup {
    std::vector<PendingWgmma> wgmmas;
    const char* file;
    int line;
};

struct ThreadWgmma {
    bool fenced = false;  // a wgmma.fence since the thread could last touch its accumulators
    std::vector<PendingWgmma> open;
    std::deque<CommittedGroup> committed;
    unsigned issued = 0;
};

// The shared bytes a warpgroup's wgmma reads until one of its threads waits for it.
struct OperandRead {
    std::size_t lo[2] = {~std::size_t{0}, ~std::size_t{0}}, hi[2] = {0, 0};  // A's and B's bytes
    const char* file = nullptr;
    int line = 0;
};

// One setmaxnreg a warp executed (its lanes met there).
struct SetmaxnregCall {
    bool increase;
    unsigned count;
    const char* file;
    int line;
};

}  // namespace

struct WgmmaState {
    std::vector<ThreadWgmma> threads;
    std::map<std::pair<unsigned, unsigned>, OperandRead> reads;  // by (warpgroup, sequence)
    std::vector<std::vector<SetmaxnregCall>> setmaxnreg;         // by warp, in the order it executed them
    bool any_setmaxnreg = false;
};

namespace {

void destroy(WgmmaState* s) { delete s; }

WgmmaState& wgmma_state(BlockRun& b) {
    if (!b.wgmma) b.wgmma = std::unique_ptr<WgmmaState, void (*)(WgmmaState*)>(new WgmmaState, &destroy);
    if (b.wgmma->threads.size() < b.thread_count) b.wgmma->threads.resize(b.thread_count);
    return *b.wgmma;
}

unsigned thread_of(const BlockRun& b) { return static_cast<unsigned>(b.current - b.threads.data()); }

// A quiet NaN with a payload: what accumulators hold while their wgmma is in flight.
constexpr std::uint32_t kInFlightBits = 0x7fc0a11bu;

float in_flight_value() {
    float value;
    std::memcpy(&value, &kInFlightBits, sizeof value);
    return value;
}

bool holds_in_flight(const float* registers, unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, &registers[i], sizeof bits);
        if (bits != kInFlightBits) return false;
    }
    return true;
}

float bf16_to_float(std::uint16_t bits) {
    const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &wide, sizeof value);
    return value;
}

// ---- The descriptors ---------------------------------------------------------------------

struct Descriptor {
    std::uint64_t bits;
    std::size_t start, lbo, sbo;  // bytes
    unsigned base_offset, mode;   // mode: 0 none, 1 128B, 2 64B, 3 32B
};

Descriptor decode(std::uint64_t bits) {
    Descriptor d;
    d.bits = bits;
    d.start = static_cast<std::size_t>(bits & 0x3fff) << 4;
    d.lbo = static_cast<std::size_t>(bits >> 16 & 0x3fff) << 4;
    d.sbo = static_cast<std::size_t>(bits >> 32 & 0x3fff) << 4;
    d.base_offset = static_cast<unsigned>(bits >> 49 & 7);
    d.mode = static_cast<unsigned>(bits >> 62 & 3);
    return d;
}

const char* mode_name(unsigned mode) {
    switch (mode) {
        case 1: return "128-byte swizzle";
        case 2: return "64-byte swizzle";
        case 3: return "32-byte swizzle";
    }
    return "no swizzle";
}

std::string describe(const char* operand, const Descriptor& d, bool mn_major) {
    std::ostringstream out;
    out << operand << "'s descriptor (start address byte " << d.start << ", leading byte offset " << d.lbo
        << ", stride byte offset " << d.sbo << ", " << mode_name(d.mode) << ", base offset " << d.base_offset << ", "
        << (mn_major ? (operand[0] == 'A' ? "M-major: transpose flag 1" : "N-major: transpose flag 1")
                     : "K-major: transpose flag 0")
        << ")";
    return out.str();
}

// The shared byte (in the window: the arena's offset) of element (mn, k) of a 128-byte
// swizzled operand: K-major ((8,m),(T,2k)):((8T,SBO),(1,T)), MN-major
// ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)) with T = 8 BF16 (16 bytes), then the swizzle's XOR
// of the 16-byte chunk bits 4-6 with the 128-byte row bits 7-9 of the address.
std::size_t operand_byte(const Descriptor& d, bool mn_major, unsigned mn, unsigned k) {
    std::size_t logical;
    if (mn_major) {
        logical = d.start + (mn % 64) * 2 + (mn / 64) * d.lbo + (k % 8) * 128 + (k / 8) * d.sbo;
    } else {
        logical = d.start + (mn % 8) * 128 + (mn / 8) * d.sbo + k * 2;
    }
    return logical ^ ((logical >> 7 & 7) << 4);
}

const char* kind_of(bool is_a) { return is_a ? "A" : "B"; }

// The descriptor's problem that every lane sees alike, or "": fields the backend does not
// run, a start address off the swizzle pattern's 1024-byte boundary, a swizzle mode other
// than the one the TMA wrote the tile with.
std::string descriptor_problem(const BlockRun& b, const char* operand, const Descriptor& d, bool mn_major) {
    std::ostringstream out;
    const std::uint64_t reserved = d.bits & 0x3ffe'c000'c000'c000ull;  // bits 14-15, 30-31, 46-48, 52-61
    if (reserved != 0) {
        out << describe(operand, d, mn_major) << " sets reserved bits (mask 0x" << std::hex << reserved << std::dec
            << "): only bits 0-13 (start address >> 4), 16-29 (leading byte offset >> 4), 32-45 (stride byte offset "
               ">> 4), 49-51 (base offset) and 62-63 (swizzle mode) may be set. Check the shifts and masks.";
        return out.str();
    }
    if (d.mode != 1) {
        // A mode other than the TMA's: name the copy when one wrote the tile.
        if (b.async && b.async->any_sources && d.start / 16 < b.async->sources.size()) {
            const ChunkSource& source = b.async->sources[d.start / 16];
            if (source.copy != 0) {
                const Copy& c = b.async->copies[source.copy - 1];
                out << describe(operand, d, mn_major) << " does not match how its tile was written: the TMA copy at "
                    << site(c.file, c.line) << " wrote it with the tensor map's "
                    << (c.swizzle_bytes == 0 ? std::string("CU_TENSOR_MAP_SWIZZLE_NONE")
                                             : "CU_TENSOR_MAP_SWIZZLE_" + std::to_string(c.swizzle_bytes) + "B")
                    << ", and the descriptor reads it with " << mode_name(d.mode)
                    << " (bits 62-63). A tile swizzled by the TMA's 128-byte swizzle is read with mode 1.";
                return out.str();
            }
        }
        out << describe(operand, d, mn_major) << " asks for " << mode_name(d.mode)
            << " (bits 62-63 = " << d.mode << "): the CPU backend runs wgmma with the 128-byte swizzle only (mode 1), "
            << "the layout the TMA writes with CU_TENSOR_MAP_SWIZZLE_128B.";
        return out.str();
    }
    if (d.base_offset != 0) {
        out << describe(operand, d, mn_major) << " has base offset " << d.base_offset
            << ": the CPU backend supports base offset 0 only, for tiles whose 1024-byte swizzle pattern starts on a "
               "1024-byte boundary. Align the tiles to 1024 bytes.";
        return out.str();
    }
    if ((d.start >> 7 & 7) != 0) {
        const std::size_t past = d.start % 1024;
        out << describe(operand, d, mn_major) << ": its start address, shared byte " << d.start << " ("
            << shared_place(b, b.arena.get() + d.start) << "), is " << past
            << " bytes past a 1024-byte boundary, which is not aligned as the 128-byte swizzle needs: with base offset "
               "0 the swizzle's pattern of 8 rows of 128 bytes starts on a 1024-byte boundary, and the start address may "
               "move only inside the pattern's first row (by 32 bytes for each 16 elements along K of a K-major tile). "
               "Start every tile (each stage's A and B) on a 1024-byte boundary of shared memory.";
        return out.str();
    }
    return "";
}

// The byte range of the element at @p byte, checked to lie in the block's shared memory.
std::string bounds_problem(const BlockRun& b, const char* operand, const Descriptor& d, bool mn_major, unsigned mn,
                           unsigned k, std::size_t byte) {
    if (byte + 2 <= b.arena_used) return "";
    std::ostringstream out;
    out << describe(operand, d, mn_major) << " reaches past the block's shared memory: its element ("
        << (mn_major ? "mn" : (operand[0] == 'A' ? "m" : "n")) << " = " << mn << ", k = " << k << ") is at shared byte "
        << byte << ", and the block has " << b.arena_used << " bytes. Check the start address (>> 4 into bits 0-13) "
        << "and the byte offsets (>> 4 into bits 16-29 and 32-45).";
    return out.str();
}

// The operand's elements checked against the TMA copies that wrote them: element (mn, k)
// must come from the tensor element the descriptor's element (0, 0) came from, moved by
// (k, mn) for a K-major operand (K is the tensor's innermost dimension) or by (mn, k) for
// an MN-major one. "" when they agree or no TMA copy wrote the tile.
std::string source_problem(const BlockRun& b, const char* operand, const Descriptor& d, bool mn_major,
                           unsigned first_mn, unsigned mn_count) {
    if (!b.async || !b.async->any_sources) return "";
    const AsyncState& s = *b.async;
    const auto source_at = [&](std::size_t byte, long long& x, long long& y) -> const Copy* {
        const ChunkSource& c = s.sources[byte / 16];
        if (c.copy == 0) return nullptr;
        x = c.x + static_cast<long long>(byte % 16 / 2);
        y = c.y;
        return &s.copies[c.copy - 1];
    };
    long long x0 = 0, y0 = 0;
    const Copy* origin = source_at(operand_byte(d, mn_major, 0, 0), x0, y0);
    if (origin == nullptr) return "";
    if (origin->swizzle_bytes != 128) {
        std::ostringstream out;
        out << describe(operand, d, mn_major) << " reads its tile with the 128-byte swizzle, but the TMA copy at "
            << site(origin->file, origin->line) << " wrote it with "
            << (origin->swizzle_bytes == 0 ? std::string("CU_TENSOR_MAP_SWIZZLE_NONE")
                                           : "CU_TENSOR_MAP_SWIZZLE_" + std::to_string(origin->swizzle_bytes) + "B")
            << ": encode the tensor map with CU_TENSOR_MAP_SWIZZLE_128B, the layout the descriptor's mode 1 reads.";
        return out.str();
    }
    // The first disagreement of the lowest class: 0 inside the first swizzle pattern (8 rows
    // of 128 bytes), 1 past the first 8 rows along the stride byte offset, 2 past the first
    // 64 elements along MN (the leading byte offset of an MN-major operand).
    int worst = 3;
    unsigned at_mn = 0, at_k = 0;
    long long got_x = 0, got_y = 0;
    const Copy* got_copy = nullptr;
    std::size_t got_byte = 0;
    for (unsigned mn = first_mn; mn < first_mn + mn_count; ++mn) {
        for (unsigned k = 0; k < 16; ++k) {
            const int cls = mn_major ? (mn >= 64 ? 2 : k >= 8 ? 1 : 0) : (mn >= 8 ? 1 : 0);
            if (cls >= worst) continue;
            const std::size_t byte = operand_byte(d, mn_major, mn, k);
            long long x = 0, y = 0;
            const Copy* c = source_at(byte, x, y);
            if (c == nullptr) continue;  // written otherwise: nothing to compare with
            const long long ex = x0 + (mn_major ? mn : k), ey = y0 + (mn_major ? k : mn);
            if (c->tensor == origin->tensor && x == ex && y == ey) continue;
            worst = cls, at_mn = mn, at_k = k, got_x = x, got_y = y, got_copy = c, got_byte = byte;
        }
    }
    if (worst == 3) return "";
    const char* mn_name = operand[0] == 'A' ? "m" : "n";
    std::ostringstream out;
    out << describe(operand, d, mn_major) << " does not read the tile as the TMA wrote it: its element (" << mn_name
        << " = " << at_mn << ", k = " << at_k << ") is shared byte " << got_byte << " ("
        << shared_place(b, b.arena.get() + got_byte) << "), where the TMA copy at " << site(got_copy->file, got_copy->line)
        << " put element (" << got_x << ", " << got_y << ") of "
        << (got_copy->tensor == origin->tensor ? "its tensor" : "another tensor")
        << " (coordinates innermost first); since its element (" << mn_name << " = 0, k = 0) is the tensor's (" << x0
        << ", " << y0 << "), it should be (" << x0 + (mn_major ? at_mn : at_k) << ", " << y0 + (mn_major ? at_k : at_mn)
        << ").\n  ";
    switch (worst) {
        case 0:
            out << "The first 8 rows of 128 bytes (one swizzle pattern) already disagree: check the start address (the "
                   "tile's first byte; + 32 bytes for each 16 elements along K of a K-major tile, + 2048 bytes, 16 rows "
                   "of 128, for an MN-major one), and whether the operand is K-major or MN-major (the transpose flag: "
                   "a tile whose 128-byte rows run along K is K-major, one whose rows run along M or N is MN-major).";
            break;
        case 1:
            out << "Rows 8 and on (k = 8 and on for an MN-major operand) disagree: check the stride byte offset (bits "
                   "32-45, >> 4), the bytes from one group of 8 rows of 128 bytes to the next: 1024 when the TMA box's "
                   "rows are 128 bytes.";
            break;
        default:
            out << "Elements 64 and on along " << (operand[0] == 'A' ? "M" : "N")
                << " disagree: check the leading byte offset (bits 16-29, >> 4), the bytes from one block of 64 elements "
                   "(one 128-byte row) along MN to the next: where the TMA box of the next 64 columns starts.";
    }
    return out.str();
}

// What one lane gives wgmma.mma_async and gets back.
struct WgmmaPart {
    std::uint64_t a, b;
    unsigned n;
    bool accumulate, transpose_a, transpose_b;
    unsigned sequence;
    const float* c;  // its accumulators' values before the wgmma (n / 2 of them)
    float* d;        // its accumulators' values after it (n / 2 of them)
    const char* file;
    int line;
    std::string problem;  // set for every lane when the warp's wgmma cannot run
};

}  // namespace

void complete_wgmma(ThreadState* lanes) {
    BlockRun& b = *current_block;
    const auto part_of = [&](unsigned lane) -> WgmmaPart& { return *reinterpret_cast<WgmmaPart*>(lanes[lane].warp_value); };
    const WgmmaPart& first = part_of(0);
    const auto fail = [&](const std::string& problem) {
        for (unsigned l = 0; l < kWarpSize; ++l) part_of(l).problem = problem;
    };
    for (unsigned l = 1; l < kWarpSize; ++l) {
        const WgmmaPart& p = part_of(l);
        if (p.a != first.a || p.b != first.b || p.n != first.n || p.accumulate != first.accumulate ||
            p.transpose_a != first.transpose_a || p.transpose_b != first.transpose_b) {
            std::ostringstream out;
            out << "lane " << l << " gives other descriptors or flags than lane 0 (A 0x" << std::hex << p.a << " and 0x"
                << first.a << ", B 0x" << p.b << " and 0x" << first.b << std::dec
                << "): a wgmma's descriptors, shape and flags are the same in every thread of the warpgroup.";
            fail(out.str());
            return;
        }
    }
    const unsigned linear = static_cast<unsigned>(lanes - b.threads.data());
    const unsigned warp_in_group = linear / kWarpSize % 4, warpgroup = linear / kWarpgroup;
    const unsigned n = first.n, first_row = 16 * warp_in_group;
    const Descriptor da = decode(first.a), db = decode(first.b);
    // Does each descriptor read the tile as the TMA wrote it?
    std::string problem = source_problem(b, "A", da, first.transpose_a, 0, 64);
    if (problem.empty()) problem = source_problem(b, "B", db, first.transpose_b, 0, n);
    if (!problem.empty()) {
        fail(problem);
        return;
    }
    const char* arena = b.arena.get();
    const auto element = [&](std::size_t byte) {
        std::uint16_t bits;
        std::memcpy(&bits, arena + byte, sizeof bits);
        return bf16_to_float(bits);
    };
    float A[16][16];
    std::vector<float> B(16 * static_cast<std::size_t>(n));
    OperandRead& read = wgmma_state(b).reads[{warpgroup, first.sequence}];
    const auto note = [&](int which, std::size_t byte) {
        read.lo[which] = std::min(read.lo[which], byte);
        read.hi[which] = std::max(read.hi[which], byte + 2);
    };
    read.file = first.file;
    read.line = first.line;
    for (unsigned r = 0; r < 16; ++r) {
        for (unsigned k = 0; k < 16; ++k) {
            const std::size_t byte = operand_byte(da, first.transpose_a, first_row + r, k);
            A[r][k] = element(byte);
            note(0, byte);
        }
    }
    for (unsigned k = 0; k < 16; ++k) {
        for (unsigned c = 0; c < n; ++c) {
            const std::size_t byte = operand_byte(db, first.transpose_b, c, k);
            B[k * n + c] = element(byte);
            note(1, byte);
        }
    }
    // Lane t holds, for every 8 columns j: d[4j], d[4j + 1] at row t / 4, columns 8j + 2 (t % 4)
    // and + 1; d[4j + 2], d[4j + 3] at row t / 4 + 8. The products of two BF16 values are
    // exact in FP32; they are added in FP32, in the order of k, to the accumulator.
    for (unsigned t = 0; t < kWarpSize; ++t) {
        WgmmaPart& p = part_of(t);
        for (unsigned v = 0; v < n / 2; ++v) {
            const unsigned row = t / 4 + 8 * (v / 2 % 2), col = 8 * (v / 4) + 2 * (t % 4) + v % 2;
            float sum = p.accumulate ? p.c[v] : 0.0f;
            for (unsigned k = 0; k < 16; ++k) sum += A[row][k] * B[k * n + col];
            p.d[v] = sum;
        }
    }
}

std::uint32_t shared_window_address(const void* pointer, const char* file, int line) {
    BlockRun& b = block_or_die("the shared address of a pointer");
    const char* p = static_cast<const char*>(pointer);
    const char* base = b.arena.get();
    if (p < base || p >= base + b.arena_used) {
        throw matrix_lane_fault("shared address", file, line,
                                "the pointer is not in the block's shared memory: only a __shared__ variable or the "
                                "dynamic shared memory has an address in the shared window (a wgmma descriptor's "
                                "start address).");
    }
    return static_cast<std::uint32_t>(p - base);
}

void wgmma_fence(const char* file, int line) {
    BlockRun& b = block_or_die("wgmma.fence");
    check_time(file, line);
    wgmma_state(b).threads[thread_of(b)].fenced = true;
}

void wgmma_commit_group(const char* file, int line) {
    BlockRun& b = block_or_die("wgmma.commit_group");
    check_time(file, line);
    ThreadWgmma& t = wgmma_state(b).threads[thread_of(b)];
    // An empty group is allowed, and counts, as cp.async's does.
    t.committed.push_back(CommittedGroup{std::move(t.open), file, line});
    t.open.clear();
}

void wgmma_wait_group(int pending, const char* file, int line) {
    BlockRun& b = block_or_die("wgmma.wait_group");
    check_time(file, line);
    WgmmaState& s = wgmma_state(b);
    const unsigned me = thread_of(b);
    ThreadWgmma& t = s.threads[me];
    const std::size_t keep = pending < 0 ? 0 : static_cast<std::size_t>(pending);
    while (t.committed.size() > keep) {
        CommittedGroup group = std::move(t.committed.front());
        t.committed.pop_front();
        for (std::size_t i = 0; i < group.wgmmas.size(); ++i) {
            PendingWgmma& w = group.wgmmas[i];
            s.reads.erase({me / kWarpgroup, w.sequence});  // the warpgroup's wgmma has read its operands
            if (!holds_in_flight(w.registers, w.n)) {
                std::ostringstream out;
                out << "the accumulators of the wgmma.mma_async issued at " << site(w.file, w.line)
                    << " were written by the thread while it was in flight (before this wgmma.wait_group completed "
                       "it): on a GPU the wgmma owns them until then. Write them (zero them) before the wgmma.fence "
                       "that precedes the first wgmma, and read them only after the wait.";
                throw matrix_lane_fault("wgmma.wait_group", file, line, out.str());
            }
            // A later wgmma in flight on the same registers keeps them in flight.
            bool later = false;
            for (std::size_t j = i + 1; j < group.wgmmas.size() && !later; ++j) later = group.wgmmas[j].registers == w.registers;
            for (const CommittedGroup& g : t.committed) {
                for (const PendingWgmma& o : g.wgmmas) later = later || o.registers == w.registers;
            }
            for (const PendingWgmma& o : t.open) later = later || o.registers == w.registers;
            if (later) continue;
            std::memcpy(w.registers, w.result.data(), w.n * sizeof(float));
            t.fenced = false;  // the thread may touch them now: the next wgmma on them needs a fence
        }
    }
}

namespace {

// A warpgroup instruction needs all 4 warps of the thread's warpgroup: a block whose last
// warpgroup has fewer than 128 threads cannot run it.
void require_whole_warpgroup(const BlockRun& b, unsigned me, const char* what, const char* file, int line) {
    if (b.thread_count >= (me / kWarpgroup + 1) * kWarpgroup) return;
    throw matrix_lane_fault(what, file, line,
                            "this thread's warpgroup (threads " + std::to_string(me / kWarpgroup * kWarpgroup) + " to " +
                                std::to_string(me / kWarpgroup * kWarpgroup + kWarpgroup - 1) + ") is not whole: the "
                                "block has " + std::to_string(b.thread_count) + " threads. A warpgroup is 4 warps, "
                                "128 threads, which run " + what + " together: give the block a multiple of 128.");
}

// The entry of every warpgroup instruction: a whole warp (the full-warp check), the block's
// clock (check_time), and a whole warpgroup. Returns the block; `me` is the thread's index.
BlockRun& enter_warpgroup_instruction(const char* what, const char* file, int line, unsigned& me) {
    require_full_warp(what, file, line);
    BlockRun& b = *current_block;
    check_time(file, line);
    me = thread_of(b);
    require_whole_warpgroup(b, me, what, file, line);
    return b;
}

std::string setmaxnreg_text(const SetmaxnregCall& c) {
    return std::string("setmaxnreg.") + (c.increase ? "inc " : "dec ") + std::to_string(c.count) + " at " +
           site(c.file, c.line);
}

}  // namespace

void setmaxnreg(bool increase, unsigned count, const char* file, int line) {
    const char* what = "setmaxnreg";
    unsigned me = 0;
    BlockRun& b = enter_warpgroup_instruction(what, file, line, me);
    if (count < 24 || count > 256 || count % 8 != 0) {
        throw matrix_lane_fault(what, file, line,
                                "its register count, " + std::to_string(count) + ", is not a multiple of 8 from 24 to "
                                "256, as the PTX ISA requires.");
    }
    // The warp's lanes meet, as at __syncwarp(): .sync.aligned.
    warp_primitive(WarpOp::setmaxnreg, 0xffffffffu, 0, 0, kWarpSize, file, line);
    if (me % kWarpSize != 0) return;  // lane 0 records what the warp executed
    WgmmaState& s = wgmma_state(b);
    const unsigned warp = me / kWarpSize, first_warp = warp / 4 * 4;
    if (s.setmaxnreg.size() < (b.thread_count + kWarpSize - 1) / kWarpSize) {
        s.setmaxnreg.resize((b.thread_count + kWarpSize - 1) / kWarpSize);
    }
    std::vector<SetmaxnregCall>& mine = s.setmaxnreg[warp];
    const SetmaxnregCall call{increase, count, file, line};
    if (!mine.empty() && (increase ? count < mine.back().count : count > mine.back().count)) {
        throw matrix_lane_fault(what, file, line,
                                "this warp's registers per thread are " + std::to_string(mine.back().count) + " since " +
                                    setmaxnreg_text(mine.back()) + ": setmaxnreg." + (increase ? "inc" : "dec") +
                                    " may only " + (increase ? "raise" : "lower") + " them.");
    }
    // The same setmaxnreg, in the same order, in every warp of the warpgroup.
    for (unsigned w = first_warp; w < first_warp + 4; ++w) {
        if (w == warp || s.setmaxnreg[w].size() <= mine.size()) continue;
        const SetmaxnregCall& other = s.setmaxnreg[w][mine.size()];
        if (other.increase == increase && other.count == count && other.line == line && std::strcmp(other.file, file) == 0) {
            continue;
        }
        throw matrix_lane_fault(what, file, line,
                                "warp " + std::to_string(w) + " of the same warpgroup executed " + setmaxnreg_text(other) +
                                    " there instead (its setmaxnreg number " + std::to_string(mine.size() + 1) + "). The "
                                    "same setmaxnreg must be executed by all 4 warps of a warpgroup: call it where the "
                                    "whole warpgroup takes the same path.");
    }
    mine.push_back(call);
    s.any_setmaxnreg = true;
}

void wgmma_bf16(float* d, unsigned n, std::uint64_t a_descriptor, std::uint64_t b_descriptor, bool accumulate,
                bool transpose_a, bool transpose_b, const char* file, int line) {
    const char* what = "wgmma.mma_async";
    unsigned me = 0;
    BlockRun& b = enter_warpgroup_instruction(what, file, line, me);
    WgmmaState& s = wgmma_state(b);
    ThreadWgmma& t = s.threads[me];
    // The accumulators' values before this wgmma: those of a wgmma in flight on the same
    // registers (wgmmas on one accumulator are ordered), else the registers themselves,
    // which the thread may have touched: a wgmma.fence must separate the two.
    const PendingWgmma* chained = nullptr;
    for (const PendingWgmma& o : t.open) {
        if (o.registers == d) chained = &o;
    }
    for (auto g = t.committed.rbegin(); g != t.committed.rend() && chained == nullptr; ++g) {
        for (const PendingWgmma& o : g->wgmmas) {
            if (o.registers == d) chained = &o;
        }
    }
    if (chained == nullptr && !t.fenced) {
        throw matrix_lane_fault(
            what, file, line,
            "no wgmma.fence since this thread could last access these accumulator registers (the kernel's start, where "
            "they were zeroed, or the wgmma.wait_group that completed them). The PTX ISA requires wgmma.fence before "
            "the first wgmma.mma_async and between a thread's access to the registers and a wgmma that uses them: call "
            "it after the accumulators are zeroed and after each wait, before the next wgmmas.");
    }
    const unsigned floats = n / 2;  // the thread's accumulators: 64 × n over 128 threads
    std::vector<float> before(floats);
    if (chained != nullptr) {
        before = chained->result;
    } else {
        std::memcpy(before.data(), d, floats * sizeof(float));
    }
    // The checks every lane makes alike, then its share of the operands' chunks: inside
    // shared memory, and landed (the stage's barrier waited for).
    const Descriptor da = decode(a_descriptor), db = decode(b_descriptor);
    std::string problem = descriptor_problem(b, "A", da, transpose_a);
    if (problem.empty()) problem = descriptor_problem(b, "B", db, transpose_b);
    if (!problem.empty()) throw matrix_lane_fault(what, file, line, problem);
    const unsigned lane = me % kWarpSize, first_row = 16 * (me / kWarpSize % 4);
    const auto check_chunk = [&](const char* operand, const Descriptor& desc, bool mn_major, unsigned mn, unsigned k) {
        const std::size_t byte = operand_byte(desc, mn_major, mn, k);
        const std::string outside = bounds_problem(b, operand, desc, mn_major, mn, k, byte);
        if (!outside.empty()) throw matrix_lane_fault(what, file, line, outside);
        if (async_watch != 0 && b.async) {
            async_shared_access(b.arena.get() + byte, 16, file, line);
            if (b.async->hit.active) report_hit(*b.async, b, what);
        }
        // The profiler sees the tensor cores' reads as 16-byte shared loads, a chunk per lane,
        // the warp's share of the operands: its banks then show whether the swizzle works.
        if (traffic::detail::recording) {
            traffic::detail::record(traffic::Space::shared, traffic::Direction::load, b.arena.get() + byte, 16,
                                    traffic::detail::line_site(file, line));
        }
    };
    // Each lane takes chunks of 16 bytes of the warp's share: A's 16 rows, all of B. Lanes
    // 8i to 8i + 7 take 8 rows of one chunk column of a K-major operand, 8 neighbouring chunks
    // of a row of an MN-major one: what the profiler then serves in one wavefront when the
    // swizzle spreads them over the banks.
    const auto chunk_of = [](unsigned index, bool mn_major, unsigned mn_count, unsigned& mn, unsigned& k) {
        if (mn_major) {
            mn = index % (mn_count / 8) * 8, k = index / (mn_count / 8);
        } else {
            const unsigned l = index % 32;
            mn = l % 8 + 8 * (l / 16) + 16 * (index / 32), k = l / 8 % 2 * 8;
        }
    };
    for (unsigned index = lane; index < 32; index += kWarpSize) {
        unsigned mn = 0, k = 0;
        chunk_of(index, transpose_a, 16, mn, k);
        check_chunk("A", da, transpose_a, first_row + mn, k);
    }
    for (unsigned index = lane; index < 2 * n; index += kWarpSize) {
        unsigned mn = 0, k = 0;
        chunk_of(index, transpose_b, n, mn, k);
        check_chunk("B", db, transpose_b, mn, k);
    }
    std::vector<float> after(floats);
    WgmmaPart part{a_descriptor, b_descriptor, n, accumulate, transpose_a, transpose_b, t.issued,
                   before.data(), after.data(), file, line, std::string()};
    warp_primitive(WarpOp::wgmma, 0xffffffffu, reinterpret_cast<std::uintptr_t>(&part), static_cast<int>(n), kWarpSize,
                   file, line);
    if (!part.problem.empty()) throw matrix_lane_fault(what, file, line, part.problem);
    // The state may have grown while the warp met: look the thread up again.
    ThreadWgmma& mine = wgmma_state(b).threads[me];
    mine.open.push_back(PendingWgmma{d, floats, std::move(after), file, line, mine.issued});
    ++mine.issued;
    const float poison = in_flight_value();
    for (unsigned i = 0; i < floats; ++i) d[i] = poison;
}

void wgmma_begin_block(BlockRun& b) {
    if (!b.wgmma) return;
    for (ThreadWgmma& t : b.wgmma->threads) t = ThreadWgmma{};
    b.wgmma->reads.clear();
    b.wgmma->setmaxnreg.clear();
    b.wgmma->any_setmaxnreg = false;
}

namespace {

// When the calling thread is the last of its warpgroup to end: whether its 4 warps executed
// as many setmaxnreg (those they executed agree already: setmaxnreg() compares them).
void check_setmaxnreg_at_end(const BlockRun& b, unsigned me) {
    const WgmmaState& s = *b.wgmma;
    const unsigned first = me / kWarpgroup * kWarpgroup;
    if (first + kWarpgroup > b.thread_count) return;
    for (unsigned t = first; t < first + kWarpgroup; ++t) {
        if (t != me && b.threads[t].status != Status::Exited) return;
    }
    const unsigned first_warp = first / kWarpSize;
    const auto calls = [&](unsigned w) { return w < s.setmaxnreg.size() ? s.setmaxnreg[w].size() : std::size_t{0}; };
    unsigned most = first_warp;
    for (unsigned w = first_warp; w < first_warp + 4; ++w) {
        if (calls(w) > calls(most)) most = w;
    }
    std::string short_warps;
    for (unsigned w = first_warp; w < first_warp + 4; ++w) {
        if (calls(w) < calls(most)) short_warps += (short_warps.empty() ? "" : ", ") + std::to_string(w);
    }
    if (short_warps.empty()) return;
    const SetmaxnregCall& missed = s.setmaxnreg[most][calls(most) - 1];
    std::ostringstream out;
    out << "setmaxnreg executed by part of a warpgroup, " << where() << ":\n  warp " << most << " of warpgroup "
        << first / kWarpgroup << " (threads " << first << " to " << first + kWarpgroup - 1 << ") executed "
        << setmaxnreg_text(missed) << ", and warp" << (short_warps.find(',') == std::string::npos ? " " : "s ")
        << short_warps << " of the same warpgroup ended without it. The PTX ISA requires the same setmaxnreg of all 4 "
           "warps of a warpgroup (.sync.aligned): call it before the branch that gives one thread or one warp its work "
           "(if (threadIdx.x == 0) ...), where the whole warpgroup takes the same path.";
    throw KernelFault{cudaErrorLaunchFailure, out.str()};
}

}  // namespace

void wgmma_thread_end(BlockRun& b) {
    if (!b.wgmma) return;
    const unsigned me = thread_of(b);
    if (b.wgmma->any_setmaxnreg) check_setmaxnreg_at_end(b, me);
    if (me >= b.wgmma->threads.size()) return;
    const ThreadWgmma& t = b.wgmma->threads[me];
    std::ostringstream out;
    if (!t.open.empty()) {
        const PendingWgmma& w = t.open.front();
        out << "wgmma.mma_async never committed, " << where() << ":\n  the wgmma issued at " << site(w.file, w.line)
            << " was in no commit group when the thread finished, so no wgmma.wait_group waited for it and its "
               "accumulators were read before it wrote them (they held NaN). After a step's wgmmas, "
               "wgmma.commit_group(); then wgmma.wait_group(N) before the accumulators are read.";
    } else if (!t.committed.empty()) {
        const CommittedGroup& g = t.committed.front();
        out << "wgmma accumulators read while still in flight, " << where() << ":\n  the wgmma group committed at "
            << site(g.file, g.line);
        if (!g.wgmmas.empty()) out << " (its first wgmma issued at " << site(g.wgmmas.front().file, g.wgmmas.front().line) << ")";
        out << " was never completed by a wgmma.wait_group when the thread finished: " << t.committed.size()
            << (t.committed.size() == 1 ? " group was" : " groups were")
            << " still in flight, so the accumulators were read (stored to C) before the wgmma wrote them (they held "
               "NaN). Before reading the accumulators wait for every group: wgmma.wait_group(0).";
    } else {
        return;
    }
    throw KernelFault{cudaErrorLaunchFailure, out.str()};
}

void wgmma_check_refill(BlockRun& b, const char* dst, std::size_t bytes, const char* api, const char* file, int line) {
    if (!b.wgmma || b.wgmma->reads.empty()) return;
    const std::size_t lo = static_cast<std::size_t>(dst - b.arena.get()), hi = lo + bytes;
    for (const auto& [key, read] : b.wgmma->reads) {
        for (int which = 0; which < 2; ++which) {
            if (read.hi[which] <= lo || hi <= read.lo[which]) continue;
            const std::size_t at = std::max(lo, read.lo[which]);
            std::ostringstream out;
            out << "a TMA copy refills shared memory that a wgmma still reads, " << where() << ":\n  " << api << " at "
                << site(file, line) << " writes " << shared_place(b, b.arena.get() + at)
                << ", which the wgmma.mma_async issued at " << site(read.file, read.line) << " by warpgroup " << key.first
                << " reads as its " << kind_of(which == 0)
                << " operand, and no thread of that warpgroup has waited for it since (wgmma.wait_group). On a GPU the "
                   "wgmma reads shared memory at any time until its group completes, so the copy may change its operand "
                   "under it. A stage may be refilled only after every warpgroup that reads it has waited for the "
                   "wgmmas that read it (wgmma.wait_group), then released it (its 'empty' barrier).";
            throw KernelFault{cudaErrorLaunchFailure, out.str()};
        }
    }
}

}  // namespace detail
}  // namespace emu
