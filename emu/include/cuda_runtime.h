/// @file cuda_runtime.h
/// @brief The CUDA runtime API of the CPU backend (BACKEND=emu).
///
/// With BACKEND=emu this header takes the place of the CUDA Toolkit's cuda_runtime.h:
/// common/, the tests and every translated .cu file include it. It declares the part of
/// the runtime the tutorial uses, with CUDA's names, types, error codes and error texts,
/// so the same source compiles for the GPU (nvcc) and for the CPU (g++).
///
/// Differences a program can notice are deliberate and documented in docs/cpu-backend.md:
/// kernels run when launched (the launch returns after the kernel finished), errors of
/// a kernel's execution are reported once by the next synchronising call instead of
/// sticking to the context, and cudaGetErrorString() appends the backend's diagnostic
/// (which thread, which buffer, which barrier) to CUDA's text.
#pragma once

#include <cstddef>

/// @brief Defined when kernels run on the CPU backend rather than on a GPU.
#define TUTORIAL_EMU 1

/// @brief Error codes, with CUDA's numeric values.
enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorAssert = 710,
    cudaErrorMisalignedAddress = 716,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
    cudaErrorInvalidClusterSize = 912,
    cudaErrorUnknown = 999,
};
/// @brief The type every runtime call returns.
typedef enum cudaError cudaError_t;

/// @brief Direction of cudaMemcpy(); cudaMemcpyDefault infers it from the pointers.
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};

/// @brief The device attributes cudaDeviceGetAttribute() answers (CUDA's values).
enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxRegistersPerBlock = 12,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrIntegrated = 18,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxRegistersPerMultiprocessor = 82,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrMaxBlocksPerMultiprocessor = 106,
    cudaDevAttrReservedSharedMemoryPerBlock = 111,
    cudaDevAttrClusterLaunch = 120,
};

/// @brief Kernel attributes for cudaFuncSetAttribute(): the dynamic shared memory limit,
/// and whether clusters of more than 8 blocks (up to 16) may be launched; the carveout is
/// accepted and ignored.
enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
    cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
};

/// @brief What cudaFuncGetAttributes() reports about a kernel.
struct cudaFuncAttributes {
    size_t sharedSizeBytes;        ///< static shared memory: ptxas' where it reported the kernel, else known after its first launch
    size_t constSizeBytes;         ///< always 0
    size_t localSizeBytes;         ///< always 0
    int maxThreadsPerBlock;        ///< 1024
    int numRegs;                   ///< registers per thread where ptxas reported the kernel (see cudaOccupancyMaxActiveBlocksPerMultiprocessor), else 0
    int ptxVersion;                ///< always 0
    int binaryVersion;             ///< always 0
    int cacheModeCA;               ///< always 0
    int maxDynamicSharedSizeBytes; ///< as set with cudaFuncSetAttribute()
};

/// @brief The device description; the fields are a subset of CUDA 13's, with its names.
struct cudaDeviceProp {
    char name[256];                     ///< "CPU backend (emu)"
    size_t totalGlobalMem;              ///< the machine's physical memory
    size_t sharedMemPerBlock;           ///< 48 KiB, the limit without opting in
    int regsPerBlock;                   ///< 65536, as on the GPUs the tutorial targets
    int warpSize;                       ///< 32: lanes of consecutive linear thread index, see docs/cpu-backend.md
    size_t memPitch;                    ///< largest pitch for pitched copies
    int maxThreadsPerBlock;             ///< 1024
    int maxThreadsDim[3];               ///< 1024, 1024, 64
    int maxGridSize[3];                 ///< 2^31 - 1, 65535, 65535
    size_t totalConstMem;               ///< 64 KiB
    int major;                          ///< 9: the limits are those of compute capability 9.0
    int minor;                          ///< 0
    int multiProcessorCount;            ///< 132, an H100's (emu::worker_threads() blocks run at once here)
    int integrated;                     ///< 1: "device" memory is host memory
    int canMapHostMemory;               ///< 0
    int concurrentKernels;              ///< 0: kernels run one at a time
    int ECCEnabled;                     ///< 0
    int pciBusID;                       ///< 0
    int pciDeviceID;                    ///< 0
    int pciDomainID;                    ///< 0
    int asyncEngineCount;               ///< 0: copies are synchronous
    int unifiedAddressing;              ///< 1
    int memoryBusWidth;                 ///< 0: not a GPU memory bus
    int l2CacheSize;                    ///< 50 MiB, an H100's (the CPU backend models no cache)
    int persistingL2CacheMaxSize;       ///< 0
    int maxThreadsPerMultiProcessor;    ///< 2048
    size_t sharedMemPerMultiprocessor;  ///< 228 KiB
    int regsPerMultiprocessor;          ///< 65536
    int managedMemory;                  ///< 0
    int cooperativeLaunch;              ///< 0
    size_t sharedMemPerBlockOptin;      ///< 227 KiB, the limit after cudaFuncSetAttribute()
    int maxBlocksPerMultiProcessor;     ///< 32
    size_t reservedSharedMemPerBlock;   ///< 1 KiB
    int clusterLaunch;                  ///< 1: thread block clusters, as on compute capability 9.0
};

/// @brief Three unsigned coordinates: the type of threadIdx and blockIdx.
struct uint3 {
    unsigned int x;  ///< first coordinate
    unsigned int y;  ///< second coordinate
    unsigned int z;  ///< third coordinate
};

/// @brief A grid or block shape; missing dimensions are 1.
struct dim3 {
    unsigned int x;  ///< extent along x
    unsigned int y;  ///< extent along y
    unsigned int z;  ///< extent along z
    /// @brief dim3(16, 16) is 16 × 16 × 1.
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    /// @brief The shape with the coordinates of @p v.
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    /// @brief The same three numbers as a uint3.
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

// float2, float4, uchar4 and uint4, for vector loads and stores (chapters 3, 5, 6, 7 and 9).
#include "emu/vector_types.h"

typedef struct CUstream_st* cudaStream_t;  ///< a stream; 0 is the default stream
typedef struct CUevent_st* cudaEvent_t;    ///< an event, for timing (meaningless on the CPU backend)

#define cudaStreamDefault 0x00       ///< stream flag, accepted and ignored
#define cudaStreamNonBlocking 0x01   ///< stream flag, accepted and ignored
#define cudaEventDefault 0x00        ///< event flag
#define cudaEventBlockingSync 0x01   ///< event flag, accepted and ignored
#define cudaEventDisableTiming 0x02  ///< event flag: cudaEventElapsedTime() refuses such events

// ---- Errors ------------------------------------------------------------------------
/// @brief Return and clear the last error of a runtime call or launch.
cudaError_t cudaGetLastError();
/// @brief Return the last error without clearing it.
cudaError_t cudaPeekAtLastError();
/// @brief CUDA's text for @p error; when the CPU backend knows more about the most recent
/// error with this code (which kernel, thread, buffer or barrier), that follows on new lines.
const char* cudaGetErrorString(cudaError_t error);
/// @brief The enumerator's name, e.g. "cudaErrorInvalidValue".
const char* cudaGetErrorName(cudaError_t error);

// ---- The device --------------------------------------------------------------------
cudaError_t cudaGetDeviceCount(int* count);            ///< always one device
cudaError_t cudaGetDevice(int* device);                ///< always device 0
cudaError_t cudaSetDevice(int device);                 ///< only device 0 exists
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);  ///< see cudaDeviceProp
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);  ///< same values as cudaDeviceProp
cudaError_t cudaDeviceSynchronize();                   ///< reports an error of the last kernel, once
cudaError_t cudaDeviceReset();                         ///< frees every allocation, clears errors
cudaError_t cudaDriverGetVersion(int* version);        ///< 13000
cudaError_t cudaRuntimeGetVersion(int* version);       ///< 13000
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);  ///< from the machine's memory

// ---- Memory ------------------------------------------------------------------------
/// @brief Allocate "device" memory: host memory that the backend bounds-checks in kernels.
/// New memory is filled with 0xFF bytes (NaN floats), like memory nobody initialised.
cudaError_t cudaMalloc(void** pointer, size_t bytes);
/// @brief Typed convenience overload, as in CUDA.
template <class T>
cudaError_t cudaMalloc(T** pointer, size_t bytes) {
    return cudaMalloc(reinterpret_cast<void**>(pointer), bytes);
}
cudaError_t cudaFree(void* pointer);                    ///< free a cudaMalloc() allocation; null is fine
/// @brief As cudaMalloc(): the CPU backend runs everything in order, so a stream-ordered
/// allocation is available at once.
cudaError_t cudaMallocAsync(void** pointer, size_t bytes, cudaStream_t stream);
/// @brief Typed convenience overload, as in CUDA.
template <class T>
cudaError_t cudaMallocAsync(T** pointer, size_t bytes, cudaStream_t stream) {
    return cudaMallocAsync(reinterpret_cast<void**>(pointer), bytes, stream);
}
/// @brief As cudaFree(), for memory from cudaMalloc() or cudaMallocAsync().
cudaError_t cudaFreeAsync(void* pointer, cudaStream_t stream);
cudaError_t cudaMallocHost(void** pointer, size_t bytes);  ///< plain host memory
template <class T>
cudaError_t cudaMallocHost(T** pointer, size_t bytes) {  ///< typed convenience overload
    return cudaMallocHost(reinterpret_cast<void**>(pointer), bytes);
}
cudaError_t cudaFreeHost(void* pointer);                ///< free cudaMallocHost() memory
/// @brief Copy @p bytes; device ranges must lie inside one cudaMalloc() allocation.
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
/// @brief As cudaMemcpy(): copies are synchronous on the CPU backend.
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream = 0);
/// @brief Set @p bytes bytes of device memory to @p value.
cudaError_t cudaMemset(void* pointer, int value, size_t bytes);
/// @brief As cudaMemset().
cudaError_t cudaMemsetAsync(void* pointer, int value, size_t bytes, cudaStream_t stream = 0);

// ---- Kernels -----------------------------------------------------------------------
/// @brief Set a kernel attribute; cudaFuncAttributeMaxDynamicSharedMemorySize opts the
/// kernel in to more than 48 KiB of dynamic shared memory, up to sharedMemPerBlockOptin.
cudaError_t cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute attr, int value);
/// @brief The same for a kernel named directly: cudaFuncSetAttribute(my_kernel<16>, ...).
template <class T>
cudaError_t cudaFuncSetAttribute(T* kernel, cudaFuncAttribute attr, int value) {
    return cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), attr, value);
}
/// @brief What the backend knows about a kernel (see cudaFuncAttributes).
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void* kernel);
/// @brief The same for a kernel named directly.
template <class T>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, T* kernel) {
    return cudaFuncGetAttributes(attributes, reinterpret_cast<const void*>(kernel));
}
/// @brief The kernel's mangled name, from the program's symbol table, as CUDA gives it.
cudaError_t cudaFuncGetName(const char** name, const void* kernel);
/// @brief The same for a kernel named directly.
template <class T>
cudaError_t cudaFuncGetName(const char** name, T* kernel) {
    return cudaFuncGetName(name, reinterpret_cast<const void*>(kernel));
}

// ---- Occupancy ---------------------------------------------------------------------------
#define cudaOccupancyDefault 0x00                 ///< occupancy flag: the default
#define cudaOccupancyDisableCachingOverride 0x01  ///< occupancy flag: no effect on compute capability 9.0
/// @brief How many blocks of @p blockSize threads and @p dynamicSMemSize bytes of dynamic
/// shared memory fit on one SM at once: what an H100 (sm_90) answers, computed by the
/// profiler's occupancy calculator (gpu_model/include/gpu_model/occupancy.h) from the kernel's registers per
/// thread and static shared memory as ptxas reported them when the program was built
/// (emu/include/emu/ptxas_report.h). A kernel whose registers are unknown (nvcc missing,
/// or its chapter's registry line without occupancy=yes) fails with
/// cudaErrorInvalidResourceHandle, as a function that is not a kernel does on the GPU, and
/// a message saying why. The shared-memory carveout preference is not modelled: the answer
/// is the default carveout's.
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize);
/// @brief The same for a kernel named directly.
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, T* func, int blockSize, size_t dynamicSMemSize) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, reinterpret_cast<const void*>(func), blockSize,
                                                         dynamicSMemSize);
}
/// @brief As cudaOccupancyMaxActiveBlocksPerMultiprocessor(); @p flags is cudaOccupancyDefault
/// or cudaOccupancyDisableCachingOverride, which give the same answer on an H100.
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int flags);
/// @brief The same for a kernel named directly.
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, T* func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int flags) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, reinterpret_cast<const void*>(func), blockSize,
                                                                  dynamicSMemSize, flags);
}

// ---- Launches with attributes (thread block clusters) ----------------------------------
/// @brief What a launch attribute sets; the CPU backend knows the cluster dimension.
enum cudaLaunchAttributeID {
    cudaLaunchAttributeIgnore = 0,                            ///< ignored
    cudaLaunchAttributeClusterDimension = 4,                  ///< val.clusterDim: blocks per cluster
    cudaLaunchAttributeClusterSchedulingPolicyPreference = 5, ///< accepted and ignored
};
/// @brief The value of a launch attribute (CUDA's union, with the members the backend reads).
union cudaLaunchAttributeValue {
    char pad[64];  ///< CUDA's size
    /// @brief Blocks per cluster along x, y and z.
    struct {
        unsigned int x;
        unsigned int y;
        unsigned int z;
    } clusterDim;
    int clusterSchedulingPolicyPreference;  ///< accepted and ignored
};
/// @brief One launch attribute: which, and its value.
struct cudaLaunchAttribute {
    cudaLaunchAttributeID id;      ///< which attribute
    char pad[8 - sizeof(cudaLaunchAttributeID)];
    cudaLaunchAttributeValue val;  ///< its value
};
/// @brief A launch's configuration for cudaLaunchKernelEx().
struct cudaLaunchConfig_t {
    dim3 gridDim;                  ///< blocks (a multiple of the cluster dimension)
    dim3 blockDim;                 ///< threads per block
    size_t dynamicSmemBytes;       ///< dynamic shared memory per block
    cudaStream_t stream;           ///< accepted; everything runs in order
    cudaLaunchAttribute* attrs;    ///< the attributes, or null
    unsigned int numAttrs;         ///< how many
};
/// @brief How many clusters of @p config's shape can be resident at once (see
/// docs/cpu-backend.md for how the CPU backend counts them).
cudaError_t cudaOccupancyMaxActiveClusters(int* clusters, const void* kernel, const cudaLaunchConfig_t* config);
/// @brief The same for a kernel named directly.
template <class T>
cudaError_t cudaOccupancyMaxActiveClusters(int* clusters, T* kernel, const cudaLaunchConfig_t* config) {
    return cudaOccupancyMaxActiveClusters(clusters, reinterpret_cast<const void*>(kernel), config);
}

// ---- Streams and events --------------------------------------------------------------
cudaError_t cudaStreamCreate(cudaStream_t* stream);                      ///< a stream handle
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);  ///< flags ignored
cudaError_t cudaStreamDestroy(cudaStream_t stream);                      ///< release a stream
cudaError_t cudaStreamSynchronize(cudaStream_t stream);                  ///< as cudaDeviceSynchronize()
cudaError_t cudaEventCreate(cudaEvent_t* event);                         ///< an event
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);  ///< cudaEventDisableTiming is honoured
cudaError_t cudaEventDestroy(cudaEvent_t event);                         ///< release an event
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0); ///< note the host clock
cudaError_t cudaEventSynchronize(cudaEvent_t event);                     ///< as cudaDeviceSynchronize()
cudaError_t cudaEventQuery(cudaEvent_t event);                           ///< always complete
/// @brief Host time between two events, in ms. On the CPU backend it measures the
/// emulator, which says nothing about a GPU; the first call prints a line saying so.
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

// The language: qualifiers, built-in variables, __syncthreads(), math, launches.
#include "emu/kernel.h"

// cudaGetDriverEntryPointByVersion(): driver functions such as cuTensorMapEncodeTiled.
#include "emu/driver_entry.h"
