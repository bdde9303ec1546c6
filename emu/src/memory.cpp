// "Device" memory on the CPU backend: host memory in a table of allocations, so that
// kernels can check every access against the buffer it belongs to, and copies can be
// checked against the allocation they touch.
#include "block.h"
#include "internal.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <sstream>

namespace emu {
namespace detail {
namespace {

struct Table {
    std::shared_mutex mutex;
    std::map<std::uintptr_t, std::unique_ptr<Allocation>> by_begin;
    std::size_t total = 0;
    // Changes whenever an allocation comes or goes, so worker threads know when their
    // cache of recent look-ups is stale.
    std::atomic<std::uint64_t> epoch{1};
};

Table& table() {
    static Table* t = new Table;  // never destroyed: DeviceBuffers may be freed during exit
    return *t;
}

const Allocation* find_locked(std::uintptr_t at) {
    auto& by_begin = table().by_begin;
    auto next = by_begin.upper_bound(at);
    if (next == by_begin.begin()) return nullptr;
    const Allocation* a = std::prev(next)->second.get();
    // A pointer just past the end still belongs to the buffer: kernels get such pointers
    // (an empty range, the end of a loop) and only accessing them is wrong.
    return at <= a->begin + a->bytes ? a : nullptr;
}

// Worker threads look up every kernel's pointer parameters once per CUDA thread; a
// small per-thread cache keeps that off the table's lock.
struct LookupCache {
    std::uint64_t epoch = 0;
    const Allocation* recent[4] = {};
    unsigned next = 0;
};
thread_local LookupCache cache;

// Poisoned bytes after the end of every allocation (see cudaMalloc).
constexpr std::size_t kGuardBytes = 256;

// Device memory closed to host code (DeviceMemoryOpen): how many backend operations have it
// open now. Changed under open_mutex, which is taken before the table's lock.
std::mutex open_mutex;
std::atomic<int> open_count{0};

std::size_t page_size() {
    static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return size;
}

// The bytes mapped for an allocation of @p bytes: 256-byte rounding and the guard, in whole pages.
std::size_t mapped_bytes(std::size_t bytes) {
    const std::size_t page = page_size();
    return ((bytes + 255) / 256 * 256 + kGuardBytes + page - 1) / page * page;
}

void protect_all(int protection) {
    std::shared_lock<std::shared_mutex> lock(table().mutex);
    for (const auto& entry : table().by_begin) {
        mprotect(reinterpret_cast<void*>(entry.first), mapped_bytes(entry.second->bytes), protection);
    }
}

std::string bytes_text(std::size_t bytes) {
    std::ostringstream out;
    out << bytes << (bytes == 1 ? " byte" : " bytes");
    return out.str();
}

std::string elements_text(std::size_t bytes, std::size_t element_size, const char* type_name) {
    std::ostringstream out;
    if (type_name != nullptr) {
        out << bytes / element_size << " " << type_name << (bytes / element_size == 1 ? "" : "s");
    } else {
        out << bytes / element_size << " elements of " << bytes_text(element_size);
    }
    return out.str();
}

// Check that [pointer, pointer + bytes) lies inside one allocation; describe what is wrong.
bool device_range(const void* pointer, std::size_t bytes, const char* what, std::string& problem) {
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(pointer);
    const Allocation* a = find_allocation(pointer);
    std::ostringstream out;
    if (pointer == nullptr) {
        out << "the " << what << " is a null pointer";
    } else if (a == nullptr) {
        out << "the " << what << " (" << pointer << ") is not memory from cudaMalloc (a host pointer, or memory already freed?)";
    } else if (at + bytes > a->begin + a->bytes) {
        out << "the " << what << " range of " << bytes_text(bytes) << " starts at byte offset " << at - a->begin
            << " of a " << a->api << " buffer of " << bytes_text(a->bytes) << ", so it runs " << bytes_text(at + bytes - a->begin - a->bytes)
            << " past its end";
    } else {
        return true;
    }
    problem = out.str();
    return false;
}

}  // namespace

std::size_t machine_memory() {
    return static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

const Allocation* find_allocation(const void* pointer) {
    std::shared_lock<std::shared_mutex> lock(table().mutex);
    return find_locked(reinterpret_cast<std::uintptr_t>(pointer));
}

namespace {
// The bounds of the allocation @p pointer points into, through this thread's cache.
Bounds allocation_bounds(const void* pointer) {
    if (pointer == nullptr) return Bounds{};
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(pointer);
    const std::uint64_t epoch = table().epoch.load(std::memory_order_acquire);
    if (cache.epoch != epoch) {
        cache = LookupCache{};
        cache.epoch = epoch;
    }
    for (const Allocation* a : cache.recent) {
        if (a != nullptr && a->begin <= at && at <= a->begin + a->bytes) return Bounds{a->begin, a->begin + a->bytes, a};
    }
    const Allocation* a = find_allocation(pointer);
    if (a == nullptr) return Bounds{};
    cache.recent[cache.next++ % 4] = a;
    return Bounds{a->begin, a->begin + a->bytes, a};
}
}  // namespace

Bounds parameter_bounds(const void* pointer, const char* name) {
    note_pointer_name(pointer, name);
    return allocation_bounds(pointer);
}

void global_out_of_bounds(const char* name, const void* origin, const void* address, std::size_t element_size,
                          const char* type_name, const Bounds& bounds, const char* file, int line) {
    const std::ptrdiff_t byte_index = static_cast<const char*>(address) - static_cast<const char*>(origin);
    std::ostringstream access;
    access << name << "[" << byte_index / static_cast<std::ptrdiff_t>(element_size) << "]";
    std::ostringstream out;
    out << "out-of-bounds global memory access in " << running_kernel() << ", " << running_thread() << ":\n  "
        << access_site(file, line);
    if (origin == nullptr) {
        out << name << " is a null pointer, so " << access.str() << " cannot be read or written.";
    } else if (bounds.allocation == nullptr) {
        out << name << " = " << origin << " does not point into memory from cudaMalloc (a host pointer, or memory "
            << "already freed?), so " << access.str() << " cannot be read or written by a kernel.";
    } else {
        const std::size_t size = bounds.end - bounds.begin;
        const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(address) - bounds.begin);
        out << access.str() << " is " << (offset < 0 ? "before the start" : "past the end") << " of " << name
            << ", a " << bounds.allocation->api << " buffer of " << bytes_text(size);
        if (type_name != nullptr || element_size > 1) out << " (" << elements_text(size, element_size, type_name) << ")";
        if (reinterpret_cast<std::uintptr_t>(origin) != bounds.begin) {
            out << " that " << name << " points " << bytes_text(reinterpret_cast<std::uintptr_t>(origin) - bounds.begin)
                << " into";
        }
        out << ": the access is at byte offset " << offset << " of the buffer, ";
        if (offset < 0) {
            out << bytes_text(static_cast<std::size_t>(-offset)) << " before its start";
        } else if (static_cast<std::size_t>(offset) > size) {
            out << bytes_text(static_cast<std::size_t>(offset) - size) << " past its end";
        } else if (static_cast<std::size_t>(offset) == size) {
            out << "just past its end";
        } else {
            out << "partly past its end";
        }
        out << ".\n  If this thread's own element lies outside the data, the access needs a bounds check "
               "before it; if not, the index arithmetic is wrong (a row length or stride, say).";
    }
    throw KernelFault{cudaErrorIllegalAddress, out.str(), false};
}

Bounds cast_bounds(const void* pointer, const char*& name) {
    name = nullptr;
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(pointer);
    Bounds bounds = allocation_bounds(pointer);
    if (bounds.allocation != nullptr) {
        // Name the buffer after the kernel parameter that points into it.
        if (current_block != nullptr) {
            const LaunchRequest& request = *current_block->run->request;
            for (std::size_t i = 0; i < request.pointer_count && name == nullptr; ++i) {
                const auto p = reinterpret_cast<std::uintptr_t>(request.pointers[i].pointer);
                if (p >= bounds.begin && p <= bounds.end) name = current_block->grid->names[i].load(std::memory_order_relaxed);
            }
        }
        return bounds;
    }
    if (current_block != nullptr && pointer != nullptr) {
        const BlockRun& b = *current_block;
        // Variables lie side by side in the arena, so the end of one is often the start of
        // the next: a pointer strictly inside one is found first, one at an end only after.
        for (const bool at_end : {false, true}) {
            const auto holds = [&](std::uintptr_t begin, std::size_t bytes) {
                return at_end ? at == begin + bytes : at >= begin && at < begin + bytes;
            };
            for (const SharedVariable& v : b.variables) {
                const auto begin = reinterpret_cast<std::uintptr_t>(v.address);
                if (holds(begin, v.bytes)) {
                    name = v.name;
                    return Bounds{begin, begin + v.bytes, nullptr, v.name};
                }
            }
            const auto dynamic = reinterpret_cast<std::uintptr_t>(b.dynamic_base);
            if (b.dynamic_bytes > 0 && holds(dynamic, b.dynamic_bytes)) {
                name = "extern __shared__ memory";
                return Bounds{dynamic, dynamic + b.dynamic_bytes, nullptr, name};
            }
        }
    }
    // Local arrays, host memory: only the alignment is checked.
    return Bounds{0, UINTPTR_MAX, nullptr, nullptr};
}

void cast_access_fault(const char* name, const void* address, std::size_t element_size, std::size_t alignment,
                       const char* type_name, const Bounds& bounds, bool cast, const char* file, int line) {
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(address);
    const bool inside = at >= bounds.begin && at + element_size <= bounds.end;
    std::ostringstream what;  // "a 16-byte float4 access"
    what << "a " << element_size << "-byte " << (type_name != nullptr ? type_name : "element") << " access";
    std::ostringstream buffer;  // "A, a cudaMalloc buffer of 400 bytes"
    if (bounds.allocation != nullptr) {
        buffer << (name != nullptr && *name != '\0' ? name : "a buffer") << ", a " << bounds.allocation->api << " buffer of " << bytes_text(bounds.end - bounds.begin);
    } else if (bounds.shared_name != nullptr) {
        buffer << "the block's " << (std::strcmp(bounds.shared_name, "extern __shared__ memory") == 0 ? "" : "__shared__ ")
               << bounds.shared_name << " (" << bytes_text(bounds.end - bounds.begin) << ")";
    } else {
        buffer << "memory at " << address;
    }
    const bool bounded = bounds.allocation != nullptr || bounds.shared_name != nullptr;
    const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(at - bounds.begin);
    std::ostringstream out;
    out << (inside ? "misaligned " : "out-of-bounds ") << (bounds.shared_name != nullptr ? "shared" : "global")
        << " memory access in " << running_kernel() << ", " << running_thread() << ":\n  "
        << (file != nullptr ? std::string(cast ? "through the pointer cast at " : "at ") + file + ":" + std::to_string(line) + "\n  "
                            : std::string());
    out << what.str();
    if (bounded) out << " at byte offset " << offset << " of " << buffer.str();
    if (!inside) {
        if (offset < 0) {
            out << " starts " << bytes_text(static_cast<std::size_t>(-offset)) << " before its start.";
        } else {
            out << " runs " << bytes_text(at + element_size - bounds.end) << " past its end.";
        }
        out << "\n  A pointer cast to a wider type covers " << element_size << " bytes per element: the index or the "
               "count of elements through it must shrink by the same factor, and an element that only partly "
               "lies inside the data needs the narrow accesses it is made of.";
    } else {
        out << (bounded ? "" : std::string(" at ") + std::to_string(at)) << " is at an address that is not a multiple of "
            << alignment << ": a GPU makes " << element_size << "-byte accesses only at multiples of " << alignment
            << " (cudaErrorMisalignedAddress).\n  The element's index must be a multiple of "
            << alignment << " bytes from a " << alignment << "-byte-aligned start (cudaMalloc's buffers start at "
               "multiples of 256 bytes; a row's start is one only when the row length in bytes is a multiple of "
            << alignment << ").";
    }
    throw KernelFault{inside ? cudaErrorMisalignedAddress : cudaErrorIllegalAddress, out.str(), false};
}

DeviceMemoryOpen::DeviceMemoryOpen() {
    std::lock_guard<std::mutex> lock(open_mutex);
    if (open_count.fetch_add(1) == 0) protect_all(PROT_READ | PROT_WRITE);
}

DeviceMemoryOpen::~DeviceMemoryOpen() {
    std::lock_guard<std::mutex> lock(open_mutex);
    if (open_count.fetch_sub(1) == 1) {
        protect_all(PROT_NONE);
        // A test framework may have replaced the crash handler since: the handler must be
        // ours to name a host access to the memory just closed.
        claim_crash_signals();
    }
}

bool host_access_message(const void* address, bool write, char* out, std::size_t size) {
    if (open_count.load() != 0) return false;
    Table& t = table();
    if (!t.mutex.try_lock_shared()) return false;  // a signal handler must not wait
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(address);
    const Allocation* a = nullptr;
    auto next = t.by_begin.upper_bound(at);
    if (next != t.by_begin.begin()) {
        const Allocation* candidate = std::prev(next)->second.get();
        if (at < candidate->begin + mapped_bytes(candidate->bytes)) a = candidate;
    }
    if (a != nullptr) {
        std::snprintf(out, size,
                      "host code %s device memory at %p, %zu bytes into a cudaMalloc buffer of %zu bytes: on a GPU, "
                      "host code cannot touch device memory either; copy it with cudaMemcpy, or compute it in a kernel",
                      write ? "wrote" : "read", address, static_cast<std::size_t>(at - a->begin), a->bytes);
    }
    t.mutex.unlock_shared();
    return a != nullptr;
}

Snapshot Snapshot::take() {
    Snapshot snapshot;
    std::shared_lock<std::shared_mutex> lock(table().mutex);
    for (const auto& entry : table().by_begin) {
        const Allocation* a = entry.second.get();
        const auto* bytes = reinterpret_cast<const unsigned char*>(a->begin);
        snapshot.copies_.push_back(Copy{a, std::vector<unsigned char>(bytes, bytes + a->bytes)});
    }
    return snapshot;
}

void Snapshot::restore() const {
    for (const Copy& copy : copies_) {
        std::memcpy(reinterpret_cast<void*>(copy.allocation->begin), copy.bytes.data(), copy.bytes.size());
    }
}

bool Snapshot::first_difference(const Allocation*& allocation, std::size_t& offset) const {
    for (const Copy& copy : copies_) {
        const auto* now = reinterpret_cast<const unsigned char*>(copy.allocation->begin);
        if (std::memcmp(now, copy.bytes.data(), copy.bytes.size()) == 0) continue;
        for (std::size_t i = 0; i < copy.bytes.size(); ++i) {
            if (now[i] != copy.bytes[i]) {
                allocation = copy.allocation;
                offset = i;
                return true;
            }
        }
    }
    return false;
}

const unsigned char* Snapshot::bytes_of(const Allocation* allocation) const {
    for (const Copy& copy : copies_) {
        if (copy.allocation == allocation) return copy.bytes.data();
    }
    return nullptr;
}

}  // namespace detail
}  // namespace emu

using namespace emu::detail;

namespace {

// cudaMalloc and cudaMallocAsync (the CPU backend runs everything in order, so a
// stream-ordered allocation is an allocation); `api` names the call in its errors.
cudaError_t allocate(const char* api, void** pointer, size_t bytes) {
    if (pointer == nullptr) return fail(cudaErrorInvalidValue, std::string(api) + ": the pointer to store the address in is null");
    *pointer = nullptr;
    if (bytes == 0) return cudaSuccess;
    std::lock_guard<std::mutex> open(open_mutex);
    Table& t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    const std::size_t limit = machine_memory();
    if (bytes > limit || t.total + bytes > limit) {
        return fail(cudaErrorMemoryAllocation, std::string(api) + " of " + bytes_text(bytes) + ": the CPU backend's device memory is this machine's " +
                                                   bytes_text(limit) + " of RAM, and " + bytes_text(t.total) + " are in use");
    }
    // 256-byte alignment, as cudaMalloc guarantees, and a guard of kGuardBytes after the
    // end: checked accesses stop at the end, and a read past it through a raw pointer the
    // checks cannot follow finds poison, never a neighbour's data or a lucky value.
    // Pages of its own, so that host code can be kept out of it (DeviceMemoryOpen).
    const std::size_t mapped = mapped_bytes(bytes);
    void* memory = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
        return fail(cudaErrorMemoryAllocation, std::string(api) + " of " + bytes_text(bytes) + ": the machine has no memory left");
    }
    // Fresh GPU memory holds whatever was there: make that visible (NaN floats, 255 bytes),
    // in the buffer and in its guard.
    std::memset(memory, 0xFF, mapped);
    if (open_count.load() == 0) mprotect(memory, mapped, PROT_NONE);
    claim_crash_signals();  // to name a host access to it (host_access_message)
    const auto begin = reinterpret_cast<std::uintptr_t>(memory);
    t.by_begin[begin] = std::make_unique<Allocation>(Allocation{begin, bytes, api});
    t.total += bytes;
    t.epoch.fetch_add(1, std::memory_order_release);
    *pointer = memory;
    return cudaSuccess;
}

// cudaFree and cudaFreeAsync.
cudaError_t release(const char* api, void* pointer) {
    if (pointer == nullptr) return cudaSuccess;
    Table& t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    const auto found = t.by_begin.find(reinterpret_cast<std::uintptr_t>(pointer));
    if (found == t.by_begin.end()) {
        return fail(cudaErrorInvalidValue, std::string(api) + ": the pointer was not returned by cudaMalloc or cudaMallocAsync, or was freed already");
    }
    const std::size_t mapped = mapped_bytes(found->second->bytes);
    t.total -= found->second->bytes;
    t.by_begin.erase(found);
    t.epoch.fetch_add(1, std::memory_order_release);
    munmap(pointer, mapped);
    return cudaSuccess;
}

}  // namespace

cudaError_t cudaMalloc(void** pointer, size_t bytes) { return allocate("cudaMalloc", pointer, bytes); }
cudaError_t cudaMallocAsync(void** pointer, size_t bytes, cudaStream_t) {
    return allocate("cudaMallocAsync", pointer, bytes);
}
cudaError_t cudaFree(void* pointer) { return release("cudaFree", pointer); }
cudaError_t cudaFreeAsync(void* pointer, cudaStream_t) { return release("cudaFreeAsync", pointer); }

cudaError_t cudaMallocHost(void** pointer, size_t bytes) {
    if (pointer == nullptr) return fail(cudaErrorInvalidValue);
    *pointer = std::malloc(bytes == 0 ? 1 : bytes);
    return *pointer != nullptr ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}

cudaError_t cudaFreeHost(void* pointer) {
    std::free(pointer);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    // A copy waits for the kernels before it, so it reports their failure.
    if (const cudaError_t error = take_execution_error()) return error;
    if (bytes == 0) return cudaSuccess;
    std::string problem;
    bool ok = true;
    switch (kind) {
        case cudaMemcpyHostToHost: ok = dst != nullptr && src != nullptr; problem = "a null pointer"; break;
        case cudaMemcpyHostToDevice: ok = device_range(dst, bytes, "destination", problem); break;
        case cudaMemcpyDeviceToHost: ok = device_range(src, bytes, "source", problem); break;
        case cudaMemcpyDeviceToDevice:
            ok = device_range(dst, bytes, "destination", problem) && device_range(src, bytes, "source", problem);
            break;
        case cudaMemcpyDefault:
            ok = (find_allocation(dst) == nullptr || device_range(dst, bytes, "destination", problem)) &&
                 (find_allocation(src) == nullptr || device_range(src, bytes, "source", problem));
            break;
        default: return fail(cudaErrorInvalidMemcpyDirection);
    }
    if (!ok) return fail(cudaErrorInvalidValue, "cudaMemcpy of " + bytes_text(bytes) + ": " + problem);
    const DeviceMemoryOpen open;
    std::memcpy(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t) {
    return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void* pointer, int value, size_t bytes) {
    if (bytes == 0) return cudaSuccess;
    std::string problem;
    if (!device_range(pointer, bytes, "destination", problem)) {
        return fail(cudaErrorInvalidValue, "cudaMemset of " + bytes_text(bytes) + ": " + problem);
    }
    const DeviceMemoryOpen open;
    std::memset(pointer, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* pointer, int value, size_t bytes, cudaStream_t) {
    return cudaMemset(pointer, value, bytes);
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
    if (free_bytes == nullptr || total_bytes == nullptr) return fail(cudaErrorInvalidValue);
    std::shared_lock<std::shared_mutex> lock(table().mutex);
    *total_bytes = machine_memory();
    *free_bytes = *total_bytes - table().total;
    return cudaSuccess;
}

cudaError_t cudaDeviceReset() {
    Table& t = table();
    std::unique_lock<std::shared_mutex> lock(t.mutex);
    for (auto& entry : t.by_begin) munmap(reinterpret_cast<void*>(entry.first), mapped_bytes(entry.second->bytes));
    t.by_begin.clear();
    t.total = 0;
    t.epoch.fetch_add(1, std::memory_order_release);
    lock.unlock();
    take_execution_error();
    cudaGetLastError();
    return cudaSuccess;
}
