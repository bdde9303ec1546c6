// The one "device" of the CPU backend: its properties, synchronisation, streams and events.
#include "internal.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>

using namespace emu::detail;

namespace {

cudaError_t check_device(int device) {
    return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice, "there is one device, device 0");
}

}  // namespace

struct CUstream_st {
    unsigned flags;
};

struct CUevent_st {
    unsigned flags;
    bool recorded = false;
    std::chrono::steady_clock::time_point time{};
};

cudaError_t cudaGetDeviceCount(int* count) {
    if (count == nullptr) return fail(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
    if (device == nullptr) return fail(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) { return check_device(device); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    if (prop == nullptr) return fail(cudaErrorInvalidValue);
    if (const cudaError_t error = check_device(device)) return error;
    *prop = cudaDeviceProp{};
    std::snprintf(prop->name, sizeof prop->name, "CPU backend (emu)");
    prop->totalGlobalMem = machine_memory();
    prop->sharedMemPerBlock = kSharedPerBlock;
    prop->regsPerBlock = 65536;
    prop->warpSize = 32;
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = static_cast<int>(kMaxThreadsPerBlock);
    for (int d = 0; d < 3; ++d) {
        prop->maxThreadsDim[d] = static_cast<int>(kMaxBlockDim[d]);
        prop->maxGridSize[d] = static_cast<int>(kMaxGridDim[d]);
    }
    prop->totalConstMem = 65536;
    prop->major = 9;
    prop->minor = 0;
    prop->multiProcessorCount = kMultiprocessors;  // an H100's, not the worker threads: launchers size grids by it
    prop->integrated = 1;
    prop->unifiedAddressing = 1;
    prop->l2CacheSize = 50 * 1024 * 1024;  // an H100's, for a launcher that sizes work by it
    prop->maxThreadsPerMultiProcessor = 2048;
    prop->sharedMemPerMultiprocessor = 233472;
    prop->regsPerMultiprocessor = 65536;
    prop->sharedMemPerBlockOptin = kSharedPerBlockOptin;
    prop->maxBlocksPerMultiProcessor = 32;
    prop->reservedSharedMemPerBlock = 1024;
    prop->clusterLaunch = 1;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    if (value == nullptr) return fail(cudaErrorInvalidValue);
    cudaDeviceProp p;
    if (const cudaError_t error = cudaGetDeviceProperties(&p, device)) return error;
    switch (attr) {
        case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
        case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
        case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
        case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
        case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
        case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
        case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
        case cudaDevAttrMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); break;
        case cudaDevAttrTotalConstantMemory: *value = static_cast<int>(p.totalConstMem); break;
        case cudaDevAttrWarpSize: *value = p.warpSize; break;
        case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
        case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
        case cudaDevAttrIntegrated: *value = p.integrated; break;
        case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
        case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
        case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
        case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
        case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
        case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
        case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
        case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = static_cast<int>(p.sharedMemPerMultiprocessor); break;
        case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
        case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = static_cast<int>(p.sharedMemPerBlockOptin); break;
        case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
        case cudaDevAttrReservedSharedMemoryPerBlock: *value = static_cast<int>(p.reservedSharedMemPerBlock); break;
        case cudaDevAttrClusterLaunch: *value = p.clusterLaunch; break;
        default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

// Kernels run to completion when they are launched, so synchronising only has to
// report the failure of the last one.
cudaError_t cudaDeviceSynchronize() { return take_execution_error(); }

cudaError_t cudaDriverGetVersion(int* version) {
    if (version == nullptr) return fail(cudaErrorInvalidValue);
    *version = 13000;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) { return cudaDriverGetVersion(version); }

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }

namespace {

// Streams and events are handles made the same way: a null out-pointer is refused, as CUDA
// refuses it, and the fields not given start empty.
template <class Handle>
cudaError_t create_handle(Handle** handle, unsigned int flags) {
    if (handle == nullptr) return fail(cudaErrorInvalidValue);
    *handle = new Handle{flags};
    return cudaSuccess;
}

template <class Handle>
cudaError_t destroy_handle(Handle* handle) {
    delete handle;
    return cudaSuccess;
}

}  // namespace

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) { return create_handle(stream, flags); }

cudaError_t cudaStreamDestroy(cudaStream_t stream) { return destroy_handle(stream); }

cudaError_t cudaStreamSynchronize(cudaStream_t) { return take_execution_error(); }

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) { return create_handle(event, flags); }

cudaError_t cudaEventDestroy(cudaEvent_t event) { return destroy_handle(event); }

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
    if (event == nullptr) return fail(cudaErrorInvalidResourceHandle);
    event->recorded = true;
    event->time = std::chrono::steady_clock::now();
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    if (event == nullptr) return fail(cudaErrorInvalidResourceHandle);
    return take_execution_error();
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
    return event == nullptr ? fail(cudaErrorInvalidResourceHandle) : cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    if (ms == nullptr || start == nullptr || end == nullptr) return fail(cudaErrorInvalidValue);
    if (!start->recorded || !end->recorded || (start->flags & cudaEventDisableTiming) != 0 ||
        (end->flags & cudaEventDisableTiming) != 0) {
        return fail(cudaErrorInvalidResourceHandle);
    }
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) {
        std::fprintf(stderr, "CPU backend: times measured here are the emulator's, on the CPU; they say nothing about "
                             "a GPU. Measure with BACKEND=cuda.\n");
    }
    *ms = std::chrono::duration<float, std::milli>(end->time - start->time).count();
    return cudaSuccess;
}
