// What the CPU backend's source files share; not part of its public headers.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace emu {
namespace detail {

// ---- Limits, as on a GPU of compute capability 9.0 -------------------------------------
constexpr std::size_t kSharedPerBlock = 48 * 1024;        ///< without opting in
constexpr std::size_t kSharedPerBlockOptin = 232448;      ///< 227 KiB, after cudaFuncSetAttribute
constexpr unsigned kMaxThreadsPerBlock = 1024;
constexpr unsigned kMaxBlockDim[3] = {1024, 1024, 64};
constexpr unsigned kMaxGridDim[3] = {2147483647u, 65535u, 65535u};
constexpr int kMultiprocessors = 132;                     ///< an H100 SXM's SMs
constexpr const char* kArchitecture = "sm_90";            ///< the occupancy API answers for it

// ---- Errors (errors.cpp) -------------------------------------------------------------------
/// @brief An error found while a kernel runs: it stops the launch. A launch error (too
/// much shared memory, found when a block declares it) is reported like a bad configuration.
struct KernelFault {
    cudaError_t code = cudaSuccess;  ///< cudaErrorLaunchTimeout: stopped at the time limit
    std::string message;
    bool launch_error = false;
};

/// @brief Record the error of a runtime call or launch for cudaGetLastError(); @p detail is
/// what cudaGetErrorString() adds to CUDA's text for this code. Returns @p code.
cudaError_t fail(cudaError_t code, std::string detail = {});
/// @brief Record the error of a kernel's execution: the next synchronising call returns it.
void fail_execution(cudaError_t code, std::string detail);
/// @brief The pending execution error, cleared; cudaSuccess when none.
cudaError_t take_execution_error();
/// @brief Forget the details of earlier errors (a new launch starts).
void forget_error_details();

// ---- Memory (memory.cpp) -----------------------------------------------------------------------
/// @brief One cudaMalloc allocation.
struct Allocation {
    std::uintptr_t begin;
    std::size_t bytes;
    const char* api;  ///< the call that made it, for messages: "cudaMalloc" or "cudaMallocAsync"
};
/// @brief The machine's physical memory: the CPU backend's "device memory".
std::size_t machine_memory();
/// @brief The allocation that @p pointer points into (or just past the end of); null if none.
const Allocation* find_allocation(const void* pointer);

/// @brief Device memory is closed to host code, as a GPU's is: every allocation has pages of
/// its own, kept PROT_NONE except while the backend itself works on them (a launch, a copy,
/// a memset). Open while an instance lives (they nest); a host access to closed device memory
/// faults, and the crash handler names it (host_access_message).
class DeviceMemoryOpen {
public:
    DeviceMemoryOpen();
    ~DeviceMemoryOpen();
    DeviceMemoryOpen(const DeviceMemoryOpen&) = delete;
    DeviceMemoryOpen& operator=(const DeviceMemoryOpen&) = delete;
};
/// @brief For the crash handler: when @p address lies in a cudaMalloc buffer closed to host
/// code, write into @p out (async-signal-safe as far as it can be) what the host did wrong, and
/// return true.
bool host_access_message(const void* address, bool write, char* out, std::size_t size);

/// @brief A copy of every allocation's bytes, to run a grid again from the same start.
class Snapshot {
public:
    /// @brief Copy every live allocation.
    static Snapshot take();
    /// @brief Put the copied bytes back.
    void restore() const;
    /// @brief The first allocation and byte offset where memory now differs from this copy;
    /// false when it does not.
    bool first_difference(const Allocation*& allocation, std::size_t& offset) const;
    /// @brief The byte at @p offset of @p allocation in this copy.
    const unsigned char* bytes_of(const Allocation* allocation) const;

private:
    struct Copy {
        const Allocation* allocation;
        std::vector<unsigned char> bytes;
    };
    std::vector<Copy> copies_;
};

// ---- Running a grid (block_runner.cpp; labels in kernel_labels.cpp) -------------------------
/// @brief The order in which the threads of a block run between two barriers.
struct Schedule {
    enum Kind { Forward, Reverse, Random } kind = Forward;
    std::uint64_t seed = 1;
    /// @brief "forward", "reverse" or "random:SEED".
    std::string name() const;
};

// ---- Settings (settings.cpp) ------------------------------------------------------------------
/// @brief The schedules each launch runs under: EMU_SCHEDULE, or emu::set_schedules().
const std::vector<Schedule>& schedules();
/// @brief Bytes of stack for each CUDA thread (EMU_STACK_KB, default 64 KiB).
std::size_t stack_bytes();
/// @brief Worker threads (EMU_THREADS, else the machine's hardware threads).
unsigned worker_count();
/// @brief The time limit of one grid run, unless EMU_TIMEOUT says otherwise.
constexpr double kDefaultTimeLimit = 20.0;
/// @brief The time limit of one grid run in seconds, 0 for none (EMU_TIMEOUT, or
/// emu::set_time_limit()).
double time_limit_seconds();

/// @brief What a grid is run with.
struct GridRun {
    const LaunchRequest* request;
    const KernelBody* body;
    std::string kernel_text;       ///< the kernel as launched: "tiled_gemm_kernel<TILE>"
    std::string launch_site;       ///< where: "chapters/02-tiled-gemm/tiled_gemm.cu:64"
    std::size_t shared_limit;      ///< static + dynamic shared bytes a block may use
    Schedule schedule;
    unsigned workers;              ///< at most this many blocks run at once
    const void* watch = nullptr;   ///< note which thread touches this address
    dim3 cluster{0, 0, 0};         ///< blocks per cluster; 0 x 0 x 0 for a launch without clusters
};

/// @brief Which threads touched the address a grid watches (GridRun::watch): noted while
/// the grid runs (GridState), handed on with its outcome (GridOutcome).
struct WatchedTouches {
    bool watch_seen = false;          ///< the watched address was touched ...
    uint3 watch_block{0, 0, 0};       ///< ... last by this block
    uint3 watch_thread{0, 0, 0};      ///< ... and thread
    uint3 watch_first_block{0, 0, 0};   ///< the first block that touched it ...
    uint3 watch_first_thread{0, 0, 0};  ///< ... and thread
    bool watch_several = false;         ///< another thread touched it after the first
};

/// @brief What came of it.
struct GridOutcome : WatchedTouches {
    bool faulted = false;
    KernelFault fault;
    bool used_shared = false;         ///< some block declared or was given shared memory
    bool used_barrier = false;        ///< some thread reached __syncthreads()
    bool order_sensitive = false;     ///< float atomics: results may differ between orders
    std::size_t static_shared = 0;    ///< bytes of __shared__ variables one block declared
    std::vector<const char*> pointer_names;  ///< the kernel's names for request->pointers (null: unknown)
    std::string kernel;               ///< the kernel for messages, see kernel_label()
};

/// @brief "tiled_gemm_kernel<TILE> [with int TILE = 16] (launched at file:line)": the kernel
/// as launched, its template arguments from @p signature (its __PRETTY_FUNCTION__, or
/// null when unknown), and where it was launched.
std::string kernel_label(const GridRun& run, const char* signature);
/// @brief The kernel as its messages name it: @p launched, the text of the launch
/// ("tiled_gemm_kernel<TILE>"), unless that is another name (a function pointer's,
/// "kernel"), when it is the function's own name in @p signature (its __PRETTY_FUNCTION__).
std::string kernel_as_written(const std::string& launched, const char* signature);

/// @brief A kernel's `__cluster_dims__` (0 x 0 x 0 if it has none): what its first statement
/// tells when @p body runs as a probe, which ends there (emu/src/cluster.cpp).
/// @p signature, when not null, gets the kernel's __PRETTY_FUNCTION__ (null if the probe ended
/// before the kernel told it).
dim3 cluster_dims_of(const KernelBody& body, const char** signature = nullptr);
/// @brief Check the cluster shape of a launch, from its attribute or the kernel's
/// @p compiled dimensions, as a GPU does; put it in @p cluster. On an error, @p problem says why.
cudaError_t check_cluster(const LaunchRequest& request, dim3 compiled, bool non_portable, dim3& cluster,
                          std::string& problem);

/// @brief Run every block of the grid, in parallel on worker threads.
GridOutcome run_grid(const GridRun& run);

/// @brief "at chapters/01-naive-gemm/naive_gemm.cu:31\n  " for an access written at
/// @p file:@p line, a line of a message of its own; "" when @p file is null.
std::string access_site(const char* file, int line);
/// @brief "(1,0,0)".
std::string coordinates(uint3 v);
/// @brief "block (1,0,0), thread (3,2,0)" for the thread running on this OS thread.
std::string running_thread();
/// @brief The running kernel for messages (see kernel_label()).
std::string running_kernel();
/// @brief Whether the calling OS thread is running a kernel's thread.
bool inside_kernel();
/// @brief Remember that the running kernel calls its parameter @p pointer @p name.
void note_pointer_name(const void* pointer, const char* name);

// ---- What ptxas reported (ptxas_reports.cpp) -----------------------------------------------
/// @brief A kernel's resources per block, as ptxas reported them for kArchitecture.
struct KernelResources {
    std::string name;               ///< "kernel<16>": its key (tutorial::kernel_key), "" when unknown
    int registers = -1;             ///< registers per thread
    std::size_t static_shared = 0;  ///< bytes of __shared__ variables
};
/// @brief The mangled symbol of the function at @p kernel in the program's symbol table; ""
/// when there is none.
std::string kernel_symbol(const void* kernel);
/// @brief The resources of @p kernel from the ptxas reports compiled into the program
/// (emu/include/emu/ptxas_report.h), found by its symbol's key; false, with @p problem
/// saying why (no report, not reported, nvcc missing, another architecture, overloads),
/// when they are unknown. @p resources.name is set whenever the symbol is known.
bool ptxas_resources(const void* kernel, KernelResources& resources, std::string& problem);

}  // namespace detail
}  // namespace emu
