/// @file occupancy.h
/// @brief Theoretical occupancy without a GPU: how many blocks of a kernel fit on one
/// streaming multiprocessor (SM), and which resource stops more from fitting.
///
/// The result is the number cudaOccupancyMaxActiveBlocksPerMultiprocessor() gives on the
/// GPU (with the default shared-memory carveout), computed the way the toolkit's own
/// calculator, cuda_occupancy.h, computes it, from a table of per-architecture limits.
/// The limits are those of the CUDA C++ Programming Guide's table "Technical
/// Specifications per Compute Capability" and, for the allocation granularities, of
/// cuda_occupancy.h in CUDA 13.0.
///
/// What a block needs comes from ptxas: read_ptxas_report() reads `nvcc --resource-usage`
/// output, for the profiler (common/profile/) and for the CPU backend's occupancy API
/// (emu/src/occupancy.cpp), which name a kernel alike: kernel_key().
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

namespace tutorial {

/// @brief What one SM of an architecture offers the blocks that run on it.
struct ArchitectureLimits {
    const char* name;                     ///< "sm_90"
    const char* example;                  ///< a GPU of that architecture, for messages
    int max_threads_per_sm;               ///< resident threads (warps × 32)
    int max_blocks_per_sm;                ///< resident blocks
    int registers_per_sm;                 ///< 32-bit registers
    int registers_per_block;              ///< the most one block may hold
    int max_registers_per_thread;         ///< ptxas never assigns more
    int register_allocation_unit;         ///< registers are given to a warp in multiples of this
    int register_sub_partitions;          ///< the register file is split between this many schedulers
    int max_threads_per_block;            ///< 1024 on every architecture here
    std::size_t shared_per_sm;            ///< the largest shared-memory carveout per SM, bytes
    std::size_t shared_per_block;         ///< per block without opting in (48 KiB)
    std::size_t shared_per_block_optin;   ///< per block after cudaFuncSetAttribute(MaxDynamicSharedMemorySize)
    std::size_t shared_allocation_unit;   ///< shared memory is given to a block in multiples of this
    std::size_t reserved_shared_per_block;///< taken by the system from every block (1 KiB from sm_80 on)
};

/// @brief The architectures the table knows, sm_75 to sm_120.
const std::vector<ArchitectureLimits>& known_architectures();

/// @brief The limits of architecture @p name ("sm_90", or "90").
/// @throws std::invalid_argument naming the known architectures when @p name is not one
const ArchitectureLimits& architecture_limits(const std::string& name);

/// @brief What one block of a kernel needs.
struct BlockResources {
    int threads = 0;                      ///< threads per block
    int registers_per_thread = 0;         ///< from ptxas (nvcc --resource-usage)
    std::size_t static_shared = 0;        ///< bytes of __shared__ variables
    std::size_t dynamic_shared = 0;       ///< bytes given at launch
};

/// @brief The resources that can limit the blocks per SM.
enum class Limiter {
    threads,        ///< the SM's thread (warp) slots
    blocks,         ///< the SM's block slots
    registers,      ///< the register file
    shared_memory,  ///< shared memory
};
/// @brief "threads", "blocks", "registers" or "shared memory".
const char* limiter_name(Limiter limiter);

/// @brief How many blocks fit on one SM, and why not more.
struct Occupancy {
    int blocks_per_sm = 0;                ///< the occupancy API's answer
    int warps_per_sm = 0;                 ///< blocks_per_sm × warps per block
    int max_warps_per_sm = 0;             ///< the architecture's limit
    int blocks_by_threads = 0;            ///< blocks that the thread (warp) slots allow
    int blocks_by_block_slots = 0;        ///< the architecture's block limit
    int blocks_by_registers = 0;          ///< blocks that the register file allows
    int blocks_by_shared = 0;             ///< blocks that shared memory allows
    std::size_t shared_allocated_per_block = 0;  ///< rounded up, reserved part included
    int registers_allocated_per_block = 0;       ///< rounded up per warp
    std::vector<Limiter> limiters;        ///< every resource that allows only blocks_per_sm
    /// @brief Active warps over the most an SM can hold: the theoretical occupancy.
    double fraction() const { return max_warps_per_sm ? double(warps_per_sm) / max_warps_per_sm : 0.0; }
    /// @brief "registers", or "threads and blocks" when several limit alike.
    std::string limiting() const;
};

/// @brief The theoretical occupancy of blocks needing @p block on @p arch. A block that
/// cannot run at all (too many threads, registers or bytes of shared memory) gives 0
/// blocks, and the limiter names the resource it lacks.
/// @throws std::invalid_argument for threads < 1 or registers < 0
Occupancy theoretical_occupancy(const ArchitectureLimits& arch, const BlockResources& block);

/// @brief @p symbol demangled ("_Z6kernelILi16EEvPf" -> "void kernel<16>(float*)"), or
/// @p symbol itself when it is not a mangled C++ name.
std::string demangle(const std::string& symbol);

/// @brief A kernel's name up to its parameter list, as the profiler matches kernels:
/// "void tiled_gemm_kernel<16>(float const*, ...)" -> "tiled_gemm_kernel<16>". Two
/// compilers' symbols for one kernel give the same key even where their manglings differ
/// (nvcc and g++ name an anonymous namespace differently); overloads share one key.
std::string kernel_key(std::string demangled);

/// @brief One kernel of a ptxas report.
struct PtxasKernel {
    std::string key;                 ///< kernel_key(demangle(symbol))
    std::string symbol;              ///< the mangled name ptxas compiled
    std::string arch;                ///< the architecture it was compiled for: "sm_90"
    int registers = -1;              ///< registers per thread; -1 when the report has no "Used" line
    std::size_t static_shared = 0;   ///< bytes of __shared__ variables
};

/// @brief The kernels of `nvcc --resource-usage` output (ptxas -v), in its order:
///   ptxas info    : Compiling entry function '_Z17tiled_gemm_kernelILi16EEvPKfS1_Pfiii' for 'sm_90'
///   ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem
/// Other lines are skipped.
std::vector<PtxasKernel> read_ptxas_report(std::istream& in);

}  // namespace tutorial
