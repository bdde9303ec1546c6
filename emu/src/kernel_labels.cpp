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

namespace {
// The unqualified name in "ns::name<T, 4>" or "name": what follows the last "::" outside
// the template arguments, up to them.
std::string unqualified(const std::string& text) {
    std::string name = text.substr(0, text.find('<'));
    const std::size_t colons = name.rfind("::");
    if (colons != std::string::npos) name.erase(0, colons + 2);
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    return name;
}

// The function's name in its __PRETTY_FUNCTION__, "void ns::name(const float*, int) [with
// ...]": the word before the parameters' parenthesis. Empty when it cannot be read.
std::string function_name_of(const char* signature) {
    if (signature == nullptr) return "";
    std::string text = signature;
    const std::size_t with = text.find(" [with ");
    if (with != std::string::npos) text.erase(with);
    const std::size_t open = text.find('(');
    if (open == std::string::npos) return "";
    const std::size_t space = text.rfind(' ', open);
    std::string name = text.substr(space == std::string::npos ? 0 : space + 1, open - (space == std::string::npos ? 0 : space + 1));
    const std::string anonymous = "{anonymous}::";
    for (std::size_t at; (at = name.find(anonymous)) != std::string::npos;) name.erase(at, anonymous.size());
    return name;
}
}  // namespace

std::string kernel_as_written(const std::string& launched, const char* signature) {
    // A launch through a function pointer (cudaLaunchKernelEx(&config, kernel, ...) in a
    // helper that takes the kernel) writes the pointer's name, not the kernel's: the
    // kernel's own signature names it.
    const std::string name = function_name_of(signature);
    if (name.empty() || unqualified(launched) == unqualified(name)) return launched;
    return name;
}

std::string kernel_label(const GridRun& run, const char* signature) {
    std::string label = kernel_as_written(run.kernel_text, signature);
    // g++ writes a template's arguments as "... [with int TILE = 16]".
    const char* with = signature != nullptr ? std::strstr(signature, " [with ") : nullptr;
    if (with != nullptr) label += with;
    return label + " (launched at " + run.launch_site + ")";
}

void kernel_entered(const char* signature) {
    end_probe(dim3(0, 0, 0), signature);  // a launch's probe of a kernel without __cluster_dims__ ends here
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
