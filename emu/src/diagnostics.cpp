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

}  // namespace detail
}  // namespace emu
