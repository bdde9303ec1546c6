// Warp-level primitives on the CPU backend.
//
// The threads of a block with linear indices 32w .. 32w + 31 are warp w. A lane that
// calls a primitive (__syncwarp, a shuffle, a vote, __activemask) records what it supplies
// and gives the worker thread back, as at __syncthreads(). When no thread of the block
// can run, the scheduler calls resolve_warps(): a primitive completes once every lane its
// mask names waits at that same call with that same mask; each lane's result is then
// computed from the values all of them supplied, so it cannot depend on the order the
// lanes ran in. Lanes that can never all meet are a diagnostic (diagnostics.cpp). The
// tensor cores' ldmatrix, mma.sync and wgmma.mma_async meet here too, every lane supplying a pointer to its
// part, which tensor_core.cpp reads and fills once the whole warp is there.
#include "block.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace emu {
namespace detail {
namespace {

constexpr unsigned kWarpSize = 32;

bool is_matrix_op(WarpOp op) { return op == WarpOp::ldmatrix || op == WarpOp::mma_sync || op == WarpOp::wgmma; }

bool is_shuffle(WarpOp op) {
    return op == WarpOp::shfl || op == WarpOp::shfl_up || op == WarpOp::shfl_down || op == WarpOp::shfl_xor;
}

// The lanes warp @p warp of @p b has: 32, or fewer for the last warp of a block whose
// size is not a multiple of 32.
unsigned warp_lanes(const BlockRun& b, unsigned warp) {
    const std::size_t first = static_cast<std::size_t>(warp) * kWarpSize;
    return static_cast<unsigned>(std::min<std::size_t>(kWarpSize, b.thread_count - first));
}

// Whether lane @p other waits at the same call as @p t, with the same mask.
bool same_call(const ThreadState& t, const ThreadState& other) {
    return other.status == Status::AtWarp && other.warp_op == t.warp_op && other.line == t.line &&
           other.warp_mask == t.warp_mask && std::strcmp(other.file, t.file) == 0;
}

// The fault of lane @p lane of warp @p warp, thread @p me, at the call it waits at.
KernelFault call_fault(const ThreadState& me, unsigned warp, unsigned lane, const std::string& problem) {
    std::ostringstream out;
    out << "bad " << warp_op_name(me.warp_op) << " in " << running_kernel() << ", block " << coordinates(blockIdx)
        << ", thread " << coordinates(me.index) << " (lane " << lane << " of warp " << warp << "), at " << me.file << ":"
        << me.line << ":\n  " << problem;
    return KernelFault{cudaErrorLaunchFailure, out.str()};
}

// The lane whose value lane @p lane reads in shuffle @p t, or @p lane itself when the
// source lies outside the caller's group of width lanes (the caller keeps its own value,
// as on a GPU). Follows the PTX definition of shfl.sync for each mode.
unsigned source_lane(const ThreadState& t, unsigned lane) {
    const unsigned width = static_cast<unsigned>(t.warp_width);
    const unsigned first = lane & ~(width - 1), last = first + width - 1;
    const unsigned b = static_cast<unsigned>(t.warp_argument) & (kWarpSize - 1);
    switch (t.warp_op) {
        case WarpOp::shfl: return first | (static_cast<unsigned>(t.warp_argument) & (width - 1));
        case WarpOp::shfl_up: return lane >= first + b ? lane - b : lane;
        case WarpOp::shfl_down: return lane + b <= last ? lane + b : lane;
        case WarpOp::shfl_xor: return (lane ^ b) <= last ? lane ^ b : lane;
        default: return lane;
    }
}

// Complete the call that lane @p lane of warp @p warp waits at, if every lane of its mask
// is there too. Returns whether it completed.
bool try_complete(BlockRun& b, unsigned warp, unsigned lane) {
    ThreadState* lanes = b.threads.data() + static_cast<std::size_t>(warp) * kWarpSize;
    const unsigned count = warp_lanes(b, warp);
    const ThreadState& t = lanes[lane];
    unsigned mask = t.warp_mask;
    if (t.warp_op == WarpOp::activemask) {
        // The lanes at this same call when the block can go no further are those that run it together.
        mask = 0;
        for (unsigned l = 0; l < count; ++l) {
            if (lanes[l].status == Status::AtWarp && lanes[l].warp_op == WarpOp::activemask && same_call(t, lanes[l])) {
                mask |= 1u << l;
            }
        }
    } else {
        for (unsigned l = 0; l < kWarpSize; ++l) {
            if ((mask >> l & 1u) != 0 && (l >= count || !same_call(t, lanes[l]))) return false;
        }
    }
    if (is_matrix_op(t.warp_op)) {
        // The whole warp is here (the mask is full): each lane's part is read and written.
        complete_matrix_op(lanes);
    }
    unsigned votes = 0;
    for (unsigned l = 0; l < count; ++l) {
        if ((mask >> l & 1u) != 0 && lanes[l].warp_value != 0) votes |= 1u << l;
    }
    for (unsigned l = 0; l < count; ++l) {
        if ((mask >> l & 1u) == 0 || is_matrix_op(lanes[l].warp_op)) continue;
        ThreadState& me = lanes[l];
        switch (me.warp_op) {
            case WarpOp::syncwarp:
            case WarpOp::setmaxnreg: me.warp_result = 0; break;
            case WarpOp::ballot: me.warp_result = votes; break;
            case WarpOp::any: me.warp_result = votes != 0; break;
            case WarpOp::all: me.warp_result = votes == mask; break;
            case WarpOp::activemask: me.warp_result = mask; break;
            default: {
                const unsigned from = source_lane(me, l);
                // A lane outside the mask takes no part: on a GPU what it gives is undefined.
                // Here it is all 0xFF bytes (NaN, -1), like memory nobody wrote, so that
                // using it shows.
                me.warp_result = (mask >> from & 1u) != 0 ? lanes[from].warp_value : ~0ull;
            }
        }
    }
    for (unsigned l = 0; l < count; ++l) {
        if ((mask >> l & 1u) != 0) lanes[l].status = Status::Ready;
    }
    return true;
}

}  // namespace

const char* warp_op_name(WarpOp op) {
    switch (op) {
        case WarpOp::syncwarp: return "__syncwarp()";
        case WarpOp::shfl: return "__shfl_sync()";
        case WarpOp::shfl_up: return "__shfl_up_sync()";
        case WarpOp::shfl_down: return "__shfl_down_sync()";
        case WarpOp::shfl_xor: return "__shfl_xor_sync()";
        case WarpOp::ballot: return "__ballot_sync()";
        case WarpOp::any: return "__any_sync()";
        case WarpOp::all: return "__all_sync()";
        case WarpOp::activemask: return "__activemask()";
        case WarpOp::ldmatrix: return "ldmatrix";
        case WarpOp::mma_sync: return "mma.sync";
        case WarpOp::wgmma: return "wgmma.mma_async";
        case WarpOp::setmaxnreg: return "setmaxnreg";
    }
    return "a warp primitive";
}

unsigned long long warp_primitive(WarpOp op, unsigned mask, unsigned long long value, int argument, int width,
                                  const char* file, int line) {
    BlockRun& b = block_or_die(warp_op_name(op));
    ThreadState& me = *b.current;
    const unsigned linear = static_cast<unsigned>(&me - b.threads.data());
    const unsigned warp = linear / kWarpSize, lane = linear % kWarpSize;
    check_time(file, line);
    async_checkpoint(b);
    me.warp_op = op;
    me.file = file;
    me.line = line;
    if (op != WarpOp::activemask && (mask >> lane & 1u) == 0) {
        std::ostringstream problem;
        problem << "its mask " << std::hex << std::showbase << mask << std::dec << " does not name lane " << lane
                << ", the calling lane itself. Every lane that calls a warp primitive must be in its mask.";
        throw call_fault(me, warp, lane, problem.str());
    }
    if (is_shuffle(op) && (width < 1 || width > static_cast<int>(kWarpSize) || (width & (width - 1)) != 0)) {
        throw call_fault(me, warp, lane,
                         "width " + std::to_string(width) + " is not a power of 2 from 1 to 32 (warpSize); the result "
                         "would be undefined on a GPU.");
    }
    me.warp_mask = mask;
    me.warp_value = value;
    me.warp_argument = argument;
    me.warp_width = width;
    me.status = Status::AtWarp;
    // Lanes that meet can exchange values through shared memory as through a barrier:
    // the order check must run such a launch again.
    b.used_barrier = true;
    me.fiber.suspend();
    return me.warp_result;
}

bool complete_warp_call(BlockRun& b, unsigned thread) {
    const ThreadState& t = b.threads[thread];
    if (t.status != Status::AtWarp || t.warp_op == WarpOp::activemask) return false;
    return try_complete(b, thread / kWarpSize, thread % kWarpSize);
}

WarpProgress resolve_warps(BlockRun& b) {
    bool waiting = false, released = false;
    const unsigned warps = static_cast<unsigned>((b.thread_count + kWarpSize - 1) / kWarpSize);
    for (unsigned warp = 0; warp < warps && !b.faulted; ++warp) {
        const unsigned count = warp_lanes(b, warp);
        for (unsigned lane = 0; lane < count && !b.faulted; ++lane) {
            const ThreadState& t = b.threads[static_cast<std::size_t>(warp) * kWarpSize + lane];
            if (t.status != Status::AtWarp) continue;
            waiting = true;
            released = try_complete(b, warp, lane) || released;
        }
    }
    if (b.faulted) return WarpProgress::stuck;
    if (released) return WarpProgress::released;
    if (!waiting) return WarpProgress::nobody_waiting;
    // Lanes wait and none of their calls can complete: report the first.
    for (unsigned warp = 0; warp < warps; ++warp) {
        for (unsigned lane = 0; lane < warp_lanes(b, warp); ++lane) {
            if (b.threads[static_cast<std::size_t>(warp) * kWarpSize + lane].status == Status::AtWarp) {
                b.faulted = true;
                b.fault = KernelFault{cudaErrorLaunchFailure, stuck_warp_message(b, warp, lane)};
                return WarpProgress::stuck;
            }
        }
    }
    return WarpProgress::stuck;
}

}  // namespace detail
}  // namespace emu
