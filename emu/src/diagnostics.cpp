// The wording of the scheduler's diagnostics: what a student reads when the threads of a
// block cannot go on together.
#include "block.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace emu {
namespace detail {

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

std::string lanes_text(unsigned lanes) {
    std::ostringstream out;
    unsigned runs = 0, count = 0;
    for (unsigned l = 0; l < 32; ++l) {
        if ((lanes >> l & 1u) == 0) continue;
        unsigned last = l;
        while (last + 1 < 32 && (lanes >> (last + 1) & 1u) != 0) ++last;
        out << (runs++ > 0 ? ", " : "") << l;
        if (last > l) out << "-" << last;
        count += last - l + 1;
        l = last;
    }
    return (count == 1 ? "lane " : "lanes ") + out.str();
}

std::string stuck_warp_message(const BlockRun& b, unsigned warp, unsigned lane) {
    const std::size_t first = static_cast<std::size_t>(warp) * 32;
    const unsigned count = static_cast<unsigned>(std::min<std::size_t>(32, b.thread_count - first));
    const ThreadState* lanes = b.threads.data() + first;
    const ThreadState& t = lanes[lane];
    const std::string op = warp_op_name(t.warp_op);
    auto same_site = [](const ThreadState& x, const ThreadState& y) {
        return x.line == y.line && std::strcmp(x.file, y.file) == 0;
    };
    // The lanes of the mask, by where they are.
    unsigned here = 0, missing = 0, exited = 0, other_mask = 0;
    struct Elsewhere {
        const ThreadState* first;
        unsigned lanes;
    };
    std::vector<Elsewhere> elsewhere;  // at a barrier or at another warp primitive
    for (unsigned l = 0; l < 32; ++l) {
        if ((t.warp_mask >> l & 1u) == 0) continue;
        if (l >= count) {
            missing |= 1u << l;
            continue;
        }
        const ThreadState& o = lanes[l];
        if (o.status == Status::Exited) {
            exited |= 1u << l;
        } else if (o.status == Status::AtWarp && o.warp_op == t.warp_op && same_site(o, t)) {
            (o.warp_mask == t.warp_mask ? here : other_mask) |= 1u << l;
        } else {
            auto found = std::find_if(elsewhere.begin(), elsewhere.end(), [&](const Elsewhere& e) {
                return e.first->status == o.status && e.first->warp_op == o.warp_op && same_site(*e.first, o);
            });
            if (found == elsewhere.end()) {
                elsewhere.push_back(Elsewhere{&o, 1u << l});
            } else {
                found->lanes |= 1u << l;
            }
        }
    }
    bool at_barrier = false;
    for (const Elsewhere& e : elsewhere) {
        at_barrier = at_barrier || e.first->status == Status::AtBarrier || e.first->status == Status::AtClusterBarrier;
    }

    std::ostringstream out;
    out << std::showbase;
    if (missing != 0) {
        out << op << " whose mask names lanes that do not exist";
    } else if (exited != 0) {
        out << op << " whose mask names lanes that have exited";
    } else if (at_barrier) {
        out << op << " whose mask names lanes that do not reach the call";
    } else if (!elsewhere.empty()) {
        out << "lanes of one warp wait at different warp primitives";
    } else {
        out << "lanes of one warp call " << op << " with different masks";
    }
    out << " in " << running_kernel() << ", block " << coordinates(blockIdx) << ", warp " << warp << " (threads "
        << coordinates(lanes[0].index) << " to " << coordinates(lanes[count - 1].index) << "):\n  " << lanes_text(here)
        << " wait at " << op << " at " << t.file << ":" << t.line << " with mask " << std::hex << t.warp_mask << std::dec
        << " (the first is thread " << coordinates(t.index) << "), but of the lanes it names";
    if (other_mask != 0) {
        out << "\n    " << lanes_text(other_mask) << " call it with a different mask";
    }
    for (const Elsewhere& e : elsewhere) {
        out << "\n    " << lanes_text(e.lanes) << " wait at "
            << waiting_call(*e.first)
            << " at " << e.first->file << ":" << e.first->line << " (the first is thread " << coordinates(e.first->index)
            << ")";
    }
    if (exited != 0) out << "\n    " << lanes_text(exited) << (exited & (exited - 1) ? " have" : " has") << " finished the kernel";
    if (missing != 0) {
        out << "\n    " << lanes_text(missing) << (missing & (missing - 1) ? " do" : " does") << " not exist: the block has "
            << b.thread_count << " threads, so warp " << warp << " has " << count << (count == 1 ? " lane" : " lanes");
    }
    out << "\n  Every lane named in the mask must reach this same call, with the same mask, as every thread of a "
           "block must reach the same __syncthreads(). Pass the mask of the lanes that do reach it (for example "
           "__ballot_sync(0xffffffff, condition) taken before the branch), or move the call to where all of them "
           "arrive.";
    return out.str();
}

std::string time_limit_message(const BlockRun& b, double seconds, const char* file, int line) {
    std::ostringstream out;
    out << "time limit: " << running_kernel() << " was still running after " << seconds
        << " s, so the CPU backend stopped it (TIMEOUT=seconds sets the limit; the default is "
        << kDefaultTimeLimit << ").\n  In block " << coordinates(blockIdx);
    std::size_t unfinished = 0;
    for (std::size_t i = 0; i < b.thread_count; ++i) unfinished += b.threads[i].status != Status::Exited;
    out << ", " << unfinished << " of its " << b.thread_count << " threads had not finished:\n    thread "
        << coordinates(b.current->index);
    if (file != nullptr) {
        out << " was at " << file << ":" << line;
    } else {
        out << " was making a memory access";
    }
    // The others, by where they wait.
    out << threads_by_place(b, [&](std::size_t i) {
        return &b.threads[i] == b.current || b.threads[i].status == Status::Exited;
    });
    const unsigned long long others = b.grid->total - b.grid->finished.load() - 1;
    if (others > 0) {
        out << "\n  " << others << " other " << (others == 1 ? "block" : "blocks") << " of the grid's " << b.grid->total
            << " had not finished.";
    }
    out << "\n  A loop that never ends does this: a counter that does not advance (such as `k += 0`), or a "
           "condition that never becomes false.";
    return out.str();
}

std::string threads_by_place(const BlockRun& b, const std::function<bool(std::size_t thread)>& left_out) {
    struct Group {
        const ThreadState* first;
        std::size_t threads;
    };
    std::vector<Group> groups;
    for (std::size_t i = 0; i < b.thread_count; ++i) {
        if (left_out(i)) continue;
        const ThreadState& t = b.threads[i];
        // A thread that waits is where its call and line are; one that is ready or has
        // finished is nowhere in particular (its warp_op is left from an earlier call).
        auto same = [&](const Group& g) {
            if (g.first->status != t.status) return false;
            if (t.status == Status::Ready || t.status == Status::Exited) return true;
            return (t.status != Status::AtWarp || g.first->warp_op == t.warp_op) && g.first->line == t.line &&
                   std::strcmp(g.first->file, t.file) == 0;
        };
        auto found = std::find_if(groups.begin(), groups.end(), same);
        if (found == groups.end()) {
            groups.push_back(Group{&t, 1});
        } else {
            ++found->threads;
        }
    }
    std::ostringstream out;
    for (const Group& g : groups) {
        out << "\n    " << g.threads << (g.threads == 1 ? " thread " : " threads ");
        if (g.first->status == Status::Exited) {
            out << (g.threads == 1 ? "has" : "have") << " finished the kernel";
        } else if (g.first->status == Status::Ready) {
            out << (g.threads == 1 ? "waits" : "wait") << " for a turn to run";
        } else {
            out << (g.threads == 1 ? "waits at " : "wait at ") << waiting_call(*g.first) << " at " << g.first->file
                << ":" << g.first->line;
        }
        out << " (the first is thread " << coordinates(g.first->index) << ")";
    }
    return out.str();
}

}  // namespace detail
}  // namespace emu
