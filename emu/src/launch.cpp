// A kernel launch on the CPU backend: the checks a GPU makes before it runs a kernel,
// running the grid, and the order check, which runs a launch that uses shared memory or
// barriers again under another thread order and compares the results.
#include "fiber.h"
#include "internal.h"
#include "traffic_hooks.h"

#include <gpu_model/occupancy.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>

namespace emu {
namespace detail {
namespace {

// What the backend knows about one kernel, across its launches.
struct KernelRecord {
    std::size_t max_dynamic_shared = kSharedPerBlock;  // cudaFuncAttributeMaxDynamicSharedMemorySize
    bool launched = false;
    std::size_t static_shared = 0;    // bytes of __shared__ variables, once launched
    bool depends_on_order = true;     // false once seen using neither shared memory nor barriers
    bool probed = false;              // compiled_cluster is known (cluster_dims_of)
    dim3 compiled_cluster{0, 0, 0};   // __cluster_dims__, 0 x 0 x 0 if none
    bool non_portable_cluster = false;  // cudaFuncAttributeNonPortableClusterSizeAllowed
    const char* signature = nullptr;  // the kernel's __PRETTY_FUNCTION__, from the probe: its own name
};

std::mutex records_mutex;
std::map<const void*, KernelRecord>& records() {
    static std::map<const void*, KernelRecord> r;
    return r;
}

KernelRecord record_of(const void* kernel) {
    std::lock_guard<std::mutex> lock(records_mutex);
    return records()[kernel];
}

// Static and dynamic shared memory together may use 48 KiB, or what the kernel opted in to.
std::size_t shared_limit(const KernelRecord& record) {
    return record.max_dynamic_shared > kSharedPerBlock ? kSharedPerBlockOptin : kSharedPerBlock;
}

std::string shape(dim3 d) {
    return std::to_string(d.x) + " x " + std::to_string(d.y) + " x " + std::to_string(d.z);
}

cudaError_t check_configuration(const LaunchRequest& request, const KernelRecord& record, std::string& problem) {
    const dim3 block = request.block, grid = request.grid;
    const unsigned long long threads = static_cast<unsigned long long>(block.x) * block.y * block.z;
    const unsigned block_dim[3] = {block.x, block.y, block.z}, grid_dim[3] = {grid.x, grid.y, grid.z};
    const char* axis = "xyz";
    std::ostringstream out;
    for (int d = 0; d < 3; ++d) {
        if (block_dim[d] == 0 || block_dim[d] > kMaxBlockDim[d] || threads > kMaxThreadsPerBlock) {
            out << "a block of " << shape(block) << " threads; a block may have at most " << kMaxThreadsPerBlock
                << " threads, at most " << kMaxBlockDim[0] << " x " << kMaxBlockDim[1] << " x " << kMaxBlockDim[2]
                << ", and none of its dimensions may be 0.";
            problem = out.str();
            return cudaErrorInvalidConfiguration;
        }
        if (grid_dim[d] == 0 || grid_dim[d] > kMaxGridDim[d]) {
            out << "a grid of " << shape(grid) << " blocks: grid." << axis[d] << " = " << grid_dim[d]
                << ", but a grid may have at most " << kMaxGridDim[0] << " x " << kMaxGridDim[1] << " x "
                << kMaxGridDim[2] << " blocks, and none of its dimensions may be 0.";
            problem = out.str();
            return cudaErrorInvalidConfiguration;
        }
    }
    if (request.shared_bytes > record.max_dynamic_shared) {
        out << request.shared_bytes << " bytes of dynamic shared memory per block, more than the kernel's limit of "
            << record.max_dynamic_shared << " bytes. Above 48 KiB (" << kSharedPerBlock << " bytes) a kernel must opt in "
            << "first with cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), up to "
            << "the device's sharedMemPerBlockOptin (" << kSharedPerBlockOptin << " bytes here).";
        problem = out.str();
        return cudaErrorInvalidValue;
    }
    if (record.launched && record.static_shared + request.shared_bytes > shared_limit(record)) {
        out << record.static_shared << " bytes of __shared__ variables and " << request.shared_bytes
            << " bytes of dynamic shared memory per block, more than the limit of " << shared_limit(record) << " bytes.";
        problem = out.str();
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

// Runs @p action with the process's standard output sent to /dev/null: a kernel's printf
// output is shown once, from the first schedule, not again for each repetition.
template <class Action>
auto quietly(Action action) {
    std::fflush(stdout);
    const int saved = dup(STDOUT_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0) dup2(null, STDOUT_FILENO);
    auto result = action();
    std::fflush(stdout);
    if (saved >= 0) {
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    if (null >= 0) close(null);
    return result;
}

void report(const KernelFault& fault) {
    if (fault.launch_error) {
        fail(fault.code, fault.message);
    } else {
        fail_execution(fault.code, fault.message);
    }
}

// The message for a launch whose memory differs at @p offset of @p allocation after
// schedule @p first (kept in @p after) and schedule @p second (in memory now).
std::string order_message(const GridRun& run, const GridOutcome& outcome, const Snapshot& before,
                          const Snapshot& after, const Allocation* allocation, std::size_t offset,
                          const Schedule& first, const Schedule& second) {
    const LaunchRequest& request = *run.request;
    // Name the element by the kernel parameter that points into the buffer.
    const PointerArgument* argument = nullptr;
    const char* name = nullptr;
    for (std::size_t i = 0; i < request.pointer_count; ++i) {
        const auto at = reinterpret_cast<std::uintptr_t>(request.pointers[i].pointer);
        if (at >= allocation->begin && at < allocation->begin + allocation->bytes) {
            argument = &request.pointers[i];
            name = outcome.pointer_names[i];
            break;
        }
    }
    std::ostringstream element;
    const unsigned char* now = reinterpret_cast<const unsigned char*>(allocation->begin);
    const unsigned char* then = after.bytes_of(allocation);
    const void* address = now + offset;
    if (argument != nullptr && name != nullptr && argument->element_size > 0) {
        const std::size_t origin = reinterpret_cast<std::uintptr_t>(argument->pointer) - allocation->begin;
        const std::size_t index = (offset - origin) / argument->element_size;
        const std::size_t start = origin + index * argument->element_size;
        address = now + start;
        element << name << "[" << index << "]";
        if (argument->print != nullptr) {
            char a[64], b[64];
            argument->print(then + start, a, sizeof a);
            argument->print(now + start, b, sizeof b);
            element << " is " << a << " after the " << first.name() << " order and " << b << " after the "
                    << second.name() << " order";
        } else {
            element << " differs between the " << first.name() << " and the " << second.name() << " order";
        }
    } else {
        element << "byte " << offset << " of a " << allocation->api << " buffer of " << allocation->bytes << " bytes is "
                << static_cast<unsigned>(then[offset]) << " after the " << first.name() << " order and "
                << static_cast<unsigned>(now[offset]) << " after the " << second.name() << " order";
    }

    // Which thread writes it: run once more, in the first order, one block at a time,
    // noting the last thread that touches that element.
    GridRun watch = run;
    watch.schedule = first;
    watch.workers = 1;
    watch.watch = address;
    before.restore();
    const GridOutcome watched = quietly([&] { return run_grid(watch); });

    std::ostringstream out;
    if (watched.watch_seen && watched.watch_several) {
        // Two threads touch one element of global memory: if both write it, the last
        // writer wins, in any order, with or without barriers.
        out << "result depends on thread order: two threads access the same element, or a missing "
               "`__syncthreads()`.\n  "
            << outcome.kernel << " gives different results when the threads of each block run in " << first.name()
            << " order and in " << second.name() << " order:\n  " << element.str() << "; thread "
            << coordinates(watched.watch_first_thread) << " of block " << coordinates(watched.watch_first_block)
            << " and thread " << coordinates(watched.watch_thread) << " of block " << coordinates(watched.watch_block)
            << " both access it.\n  If both write it, two threads compute one output element: the index "
               "arithmetic maps them to the same place, and the one that writes last wins (no barrier fixes "
               "that; each element needs exactly one writer). If one reads what the other writes, a "
               "__syncthreads() must separate them.";
        return out.str();
    }
    out << "result depends on thread order: missing `__syncthreads()` or a shared-memory race, or a value used "
           "before it is set.\n  "
        << outcome.kernel
        << " gives different results when the threads of each block run in " << first.name() << " order and in "
        << second.name() << " order:\n  " << element.str();
    if (watched.watch_seen) {
        out << "; thread " << coordinates(watched.watch_thread) << " of block " << coordinates(watched.watch_block) << " writes it";
    }
    out << ".\n  Some thread reads shared memory that another thread of its block writes, with no __syncthreads() "
           "in between (between lanes of one warp: no __syncwarp()): before the value is written, or after it was "
           "overwritten for the next step. Or a thread uses a value it never set, such as a sum declared without "
           "its `= 0`: it holds whatever was left there, which differs from one run to the next.";
    if (run.cluster.x != 0) {
        out << "\n  In a cluster launch the blocks of each cluster also ran in another order: a block that uses "
               "another's shared memory (cluster.map_shared_rank()) with no cluster.sync() between the owner's "
               "writes and that use gives such results too.";
    }
    return out.str();
}

}  // namespace

cudaError_t launch(const LaunchRequest& request, const KernelBody& body) {
    forget_error_details();
    claim_crash_signals();  // a test framework may have replaced the handler since the last launch
    const std::string site = std::string(request.file) + ":" + std::to_string(request.line);
    std::string name = std::string(request.kernel_text) + " (launched at " + site + ")";
    if (inside_kernel()) {
        // The workers are busy running the kernel that launches: waiting for them would hang.
        return fail(cudaErrorNotSupported, name + ": a kernel launched from a kernel (dynamic parallelism) cannot run "
                                                  "on the CPU backend.");
    }
    KernelRecord record = record_of(request.kernel);
    std::string problem;
    if (const cudaError_t error = check_configuration(request, record, problem)) {
        return fail(error, name + " was launched with " + problem);
    }
    if (!record.probed) {
        record.compiled_cluster = cluster_dims_of(body, &record.signature);
        record.probed = true;
        std::lock_guard<std::mutex> lock(records_mutex);
        records()[request.kernel].probed = true;
        records()[request.kernel].compiled_cluster = record.compiled_cluster;
        records()[request.kernel].signature = record.signature;
    }
    // From here on the kernel is named as written, even when launched through a pointer.
    const std::string kernel_text = kernel_as_written(request.kernel_text, record.signature);
    name = kernel_text + " (launched at " + site + ")";
    dim3 cluster;
    if (const cudaError_t error =
            check_cluster(request, record.compiled_cluster, record.non_portable_cluster, cluster, problem)) {
        return fail(error, name + " was launched with " + problem);
    }

    const DeviceMemoryOpen open;  // the kernel, its checks and snapshots touch device memory
    const std::vector<Schedule>& orders = schedules();
    GridRun run{&request, &body, kernel_text, site, shared_limit(record), orders[0], worker_count()};
    if (request.cluster_given || record.compiled_cluster.x != 0) run.cluster = cluster;
    // A kernel that used neither shared memory nor barriers before cannot depend on the
    // order of its threads through them: skip the copy of memory it would need.
    const bool may_compare = orders.size() > 1 && record.depends_on_order;
    Snapshot before;
    if (may_compare) before = Snapshot::take();
    traffic::detail::launch_begins(request, kernel_text);  // the profiler counts the first run only (traffic_hooks.h)
    const GridOutcome first = run_grid(run);
    traffic::detail::launch_ends(first);
    {
        std::lock_guard<std::mutex> lock(records_mutex);
        KernelRecord& r = records()[request.kernel];
        r.launched = true;
        r.static_shared = std::max(r.static_shared, first.static_shared);
        r.depends_on_order = first.used_shared || first.used_barrier;
    }
    if (first.faulted) {
        report(first.fault);
        return cudaSuccess;
    }
    if (!may_compare || !(first.used_shared || first.used_barrier) || first.order_sensitive) return cudaSuccess;

    const Snapshot after = Snapshot::take();
    for (std::size_t i = 1; i < orders.size(); ++i) {
        before.restore();
        run.schedule = orders[i];
        const GridOutcome other = quietly([&] { return run_grid(run); });
        if (other.faulted && other.fault.code == cudaErrorLaunchTimeout) {
            report(other.fault);  // a kernel that never ends: nothing to compare
            return cudaSuccess;
        }
        if (other.faulted) {
            after.restore();
            KernelFault fault = other.fault;
            fault.message += "\n  This happens in the " + orders[i].name() + " thread order only, not in the " +
                             orders[0].name() + " order: the result depends on thread order, a sign of a missing "
                             "`__syncthreads()` or a shared-memory race.";
            report(fault);
            return cudaSuccess;
        }
        const Allocation* allocation = nullptr;
        std::size_t offset = 0;
        if (after.first_difference(allocation, offset)) {
            const std::string message = order_message(run, other, before, after, allocation, offset, orders[0], orders[i]);
            after.restore();
            report(KernelFault{cudaErrorLaunchFailure, message});
            return cudaSuccess;
        }
    }
    return cudaSuccess;
}

}  // namespace detail
}  // namespace emu

using namespace emu::detail;

cudaError_t cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute attr, int value) {
    if (kernel == nullptr) return fail(cudaErrorInvalidDeviceFunction);
    std::lock_guard<std::mutex> lock(records_mutex);
    KernelRecord& record = records()[kernel];
    switch (attr) {
        case cudaFuncAttributeMaxDynamicSharedMemorySize:
            if (value < 0 || static_cast<std::size_t>(value) + record.static_shared > kSharedPerBlockOptin) {
                return fail(cudaErrorInvalidValue,
                            "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize, " +
                                std::to_string(value) + "): the kernel's static and dynamic shared memory together " +
                                "may not exceed sharedMemPerBlockOptin = " + std::to_string(kSharedPerBlockOptin) +
                                " bytes" + (record.static_shared ? " (it has " + std::to_string(record.static_shared) +
                                                                       " bytes of __shared__ variables)" : std::string()) +
                                ".");
            }
            record.max_dynamic_shared = static_cast<std::size_t>(value);
            return cudaSuccess;
        case cudaFuncAttributePreferredSharedMemoryCarveout:
            return value >= -1 && value <= 100 ? cudaSuccess : fail(cudaErrorInvalidValue);
        case cudaFuncAttributeNonPortableClusterSizeAllowed:
            if (value != 0 && value != 1) return fail(cudaErrorInvalidValue);
            record.non_portable_cluster = value == 1;
            return cudaSuccess;
    }
    return fail(cudaErrorInvalidValue);
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void* kernel) {
    if (attributes == nullptr || kernel == nullptr) return fail(cudaErrorInvalidValue);
    const KernelRecord record = record_of(kernel);
    *attributes = cudaFuncAttributes{};
    attributes->sharedSizeBytes = record.static_shared;
    attributes->maxThreadsPerBlock = static_cast<int>(kMaxThreadsPerBlock);
    attributes->maxDynamicSharedSizeBytes = static_cast<int>(record.max_dynamic_shared);
    KernelResources resources;
    std::string problem;
    if (ptxas_resources(kernel, resources, problem)) {  // what the GPU would say, before any launch
        attributes->numRegs = resources.registers;
        attributes->sharedSizeBytes = resources.static_shared;
    }
    return cudaSuccess;
}

cudaError_t cudaFuncGetName(const char** name, const void* kernel) {
    if (name == nullptr) return fail(cudaErrorInvalidValue, "cudaFuncGetName(): argument name is null.");
    if (kernel == nullptr) return fail(cudaErrorInvalidDeviceFunction, "cudaFuncGetName(): argument func is null.");
    // The string must outlive the call, as CUDA's does: one per kernel, kept.
    static std::mutex mutex;
    static std::map<const void*, std::string> names;
    const std::string symbol = kernel_symbol(kernel);
    if (symbol.empty()) {
        return fail(cudaErrorInvalidDeviceFunction, "cudaFuncGetName(): no function of the program's symbol table starts "
                                                    "at argument func.");
    }
    std::lock_guard<std::mutex> lock(mutex);
    *name = names.emplace(kernel, symbol).first->second.c_str();
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int flags) {
    const std::string call = "cudaOccupancyMaxActiveBlocksPerMultiprocessor(): ";
    if (numBlocks == nullptr) return fail(cudaErrorInvalidValue, call + "argument numBlocks is null.");
    if (func == nullptr) return fail(cudaErrorInvalidDeviceFunction, call + "argument func is null.");
    if ((flags & ~static_cast<unsigned>(cudaOccupancyDisableCachingOverride)) != 0) {
        return fail(cudaErrorInvalidValue, call + "argument flags is " + std::to_string(flags) +
                                               "; the flags are cudaOccupancyDefault (0) and "
                                               "cudaOccupancyDisableCachingOverride (1).");
    }
    if (blockSize < 1) {
        return fail(cudaErrorInvalidValue, call + "argument blockSize is " + std::to_string(blockSize) +
                                               "; a block has at least one thread.");
    }
    // An H100 answers cudaErrorInvalidResourceHandle for a function that is not a kernel it
    // knows; here, the kernels it knows are those whose registers ptxas reported.
    KernelResources resources;
    std::string problem;
    if (!ptxas_resources(func, resources, problem)) return fail(cudaErrorInvalidResourceHandle, call + problem);
    const KernelRecord record = record_of(func);
    tutorial::BlockResources block;
    block.threads = blockSize;
    block.registers_per_thread = resources.registers;
    block.static_shared = resources.static_shared;
    block.dynamic_shared = dynamicSMemSize;
    // As on an H100, a block that could not be launched fits 0 times: more than 1024 threads
    // (the kernel's __launch_bounds__ do not count), or more shared memory than the kernel
    // may have (48 KiB in all, unless it opted in to more dynamic shared memory).
    const bool can_start = static_cast<unsigned>(blockSize) <= kMaxThreadsPerBlock &&
                           dynamicSMemSize <= record.max_dynamic_shared &&
                           resources.static_shared + dynamicSMemSize <= shared_limit(record);
    *numBlocks = can_start ? tutorial::theoretical_occupancy(tutorial::architecture_limits(kArchitecture), block).blocks_per_sm : 0;
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize,
                                                                  cudaOccupancyDefault);
}

cudaError_t cudaOccupancyMaxActiveClusters(int* clusters, const void* kernel, const cudaLaunchConfig_t* config) {
    if (clusters == nullptr || kernel == nullptr || config == nullptr) return fail(cudaErrorInvalidValue);
    const KernelRecord record = record_of(kernel);
    LaunchRequest request{kernel, "kernel", "cudaOccupancyMaxActiveClusters", 0, config->gridDim, config->blockDim,
                          config->dynamicSmemBytes, nullptr, 0, false, dim3()};
    for (unsigned i = 0; i < config->numAttrs && config->attrs != nullptr; ++i) {
        if (config->attrs[i].id == cudaLaunchAttributeClusterDimension) {
            const auto& d = config->attrs[i].val.clusterDim;
            request.cluster_given = true;
            request.cluster = dim3(d.x, d.y, d.z);
        }
    }
    dim3 cluster;
    std::string problem;
    if (!request.cluster_given && !record.probed) {
        return fail(cudaErrorInvalidValue, "cudaOccupancyMaxActiveClusters(): config has no "
                                           "cudaLaunchAttributeClusterDimension, and the CPU backend knows a kernel's "
                                           "__cluster_dims__ only once it has been launched.");
    }
    if (const cudaError_t error = check_cluster(request, record.compiled_cluster, record.non_portable_cluster, cluster, problem)) {
        return fail(error, "cudaOccupancyMaxActiveClusters(): " + problem);
    }
    // Each worker thread runs one cluster at a time; a block that cannot start fits none.
    const unsigned long long threads = static_cast<unsigned long long>(config->blockDim.x) * config->blockDim.y * config->blockDim.z;
    const bool fits = threads >= 1 && threads <= kMaxThreadsPerBlock &&
                      record.static_shared + config->dynamicSmemBytes <= shared_limit(record);
    *clusters = fits ? static_cast<int>(worker_count()) : 0;
    return cudaSuccess;
}
