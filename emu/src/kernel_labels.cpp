// How messages name things: the kernel (with its template arguments, from the signature
// its first thread reports), the running block and thread, the kernel's names for its
// pointer parameters; and the address the order check watches.
#include "block.h"

#include <cstring>
#include <mutex>

namespace emu {
namespace detail {

const void* watched_address = nullptr;

bool inside_kernel() { return current_block != nullptr; }

std::string coordinates(uint3 v) {
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string access_site(const char* file, int line) {
    return file != nullptr ? "at " + std::string(file) + ":" + std::to_string(line) + "\n  " : std::string();
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
    end_probe(dim3(0, 0, 0));  // a launch's probe of a kernel without __cluster_dims__ ends here
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
    const auto same = [](uint3 a, uint3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; };
    if (!grid.watch_seen) {
        grid.watch_first_block = blockIdx;
        grid.watch_first_thread = threadIdx;
    } else if (!same(grid.watch_first_block, blockIdx) || !same(grid.watch_first_thread, threadIdx)) {
        grid.watch_several = true;
    }
    grid.watch_seen = true;
    grid.watch_block = blockIdx;
    grid.watch_thread = threadIdx;
}

void note_order_sensitive_atomic() {
    if (current_block != nullptr) current_block->order_sensitive = true;
}

}  // namespace detail
}  // namespace emu
