// The CPU backend's occupancy API (`make test-emu`): cudaGetDeviceProperties gives an
// H100's figures, and cudaOccupancyMaxActiveBlocksPerMultiprocessor what an H100 answers,
// for kernels whose resources are fixed by construction (tests/occupancy_kernels/), with
// their registers per thread and static shared memory from ptxas, as the build keeps them.
//
// Every expected number below is an H100's answer, measured on one (H100 80GB HBM3, CUDA
// 13.0, 2026-11-26), and worked out from its limits per SM in the comments: 2048 threads
// (64 warps), 32 blocks, 65536 registers in 4 sub-partitions of 16384, given to a warp in
// units of 256, and 228 KiB (233472 bytes) of shared memory, of which every block takes
// 1 KiB more than it asks, rounded up to 128 bytes.
#include "occupancy_kernels/occupancy_kernels.h"

#include "catch.h"

#include <emu/control.h>
#include <emu/ptxas_report.h>

#include <cuda_runtime.h>

#include <string>

namespace {

using namespace occupancy_kernels;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The occupancy API's answer for @p kernel, or -1 with the error's text in @p message.
int blocks_per_sm(const void* kernel, int threads, std::size_t dynamic_shared = 0, std::string* message = nullptr) {
    int blocks = -7;
    const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_shared);
    if (error != cudaSuccess) {
        if (message != nullptr) *message = cudaGetErrorString(error);
        cudaGetLastError();
        return -1;
    }
    return blocks;
}

// Whether ptxas' report of tests/occupancy_kernels/ is in the program: it is wherever nvcc
// was found at build time. Without, these tests say so and stop.
bool ptxas_report_here() {
    std::string message;
    if (blocks_per_sm(reinterpret_cast<const void*>(light), 32, 0, &message) >= 0) return true;
    REQUIRE(contains(message, "nvcc was not found"));
    WARN("nvcc was not found when this program was built, so the CPU backend knows no kernel's registers:\n" << message);
    return false;
}

// Functions that nvcc never compiled: ptxas reported none of them.
void compiled_by_gxx_only(float*) {}

}  // namespace

// Matched by its key, "(anonymous namespace)::renamed_by_each_compiler", through nvcc's
// and g++'s different manglings of the anonymous namespace (see the report below).
namespace {
void renamed_by_each_compiler(float*) {}
void overloaded(float*) {}  // ptxas' report below has an overload of it too
void compiled_for_sm_80(float*) {}
}  // namespace

TEST_CASE("the device is an H100: its properties and attributes", "[emu][occupancy]") {
    cudaDeviceProp p;
    REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
    CHECK(p.major == 9);
    CHECK(p.minor == 0);
    CHECK(p.multiProcessorCount == 132);
    CHECK(p.warpSize == 32);
    CHECK(p.maxThreadsPerBlock == 1024);
    CHECK(p.maxThreadsPerMultiProcessor == 2048);
    CHECK(p.maxBlocksPerMultiProcessor == 32);
    CHECK(p.regsPerBlock == 65536);
    CHECK(p.regsPerMultiprocessor == 65536);
    CHECK(p.sharedMemPerBlock == 48 * 1024);
    CHECK(p.sharedMemPerBlockOptin == 227 * 1024);
    CHECK(p.sharedMemPerMultiprocessor == 228 * 1024);
    CHECK(p.reservedSharedMemPerBlock == 1024);
    CHECK(p.l2CacheSize == 50 * 1024 * 1024);
    int value = 0;
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
    CHECK(value == 132);
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0) == cudaSuccess);
    CHECK(value == 228 * 1024);
    // The blocks that run at once here are the worker threads, whatever the SMs.
    CHECK(emu::worker_threads() >= 1);
}

TEST_CASE("the occupancy API answers as an H100 when threads or block slots limit", "[emu][occupancy]") {
    if (!ptxas_report_here()) return;
    const void* kernel = reinterpret_cast<const void*>(light);
    cudaFuncAttributes attributes;
    REQUIRE(cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess);
    INFO("ptxas gives light " << attributes.numRegs << " registers per thread");
    // Up to 32 registers, 2 blocks of 1024 threads fit the register file (ptxas gives 10).
    REQUIRE(attributes.numRegs > 0);
    REQUIRE(attributes.numRegs <= 32);
    CHECK(blocks_per_sm(kernel, 1024) == 2);  // 64 warps / 32 per block
    CHECK(blocks_per_sm(kernel, 1000) == 2);  // 1000 threads take 32 warps too
    CHECK(blocks_per_sm(kernel, 256) == 8);   // 64 / 8
    CHECK(blocks_per_sm(kernel, 96) == 21);   // 64 / 3, rounded down
    CHECK(blocks_per_sm(kernel, 32) == 32);   // 64 / 1 = 64 by warps, but 32 block slots
    CHECK(blocks_per_sm(kernel, 1) == 32);
    // More threads than a block may have: 0 blocks, not an error.
    CHECK(blocks_per_sm(kernel, 1025) == 0);
    CHECK(blocks_per_sm(kernel, 2048) == 0);
    // The flag is accepted; on an H100 it changes nothing.
    int blocks = -7;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, light, 256, 0, cudaOccupancyDisableCachingOverride) ==
          cudaSuccess);
    CHECK(blocks == 8);
}

TEST_CASE("the occupancy API answers as an H100 when shared memory limits", "[emu][occupancy]") {
    if (!ptxas_report_here()) return;
    // Dynamic shared memory of a kernel with no __shared__ variables, 128 threads (4 warps):
    CHECK(blocks_per_sm(reinterpret_cast<const void*>(light), 128, 40 * 1024) == 5);  // 233472 / (40960 + 1024) = 5.6
    CHECK(blocks_per_sm(reinterpret_cast<const void*>(light), 128, 48 * 1024) == 4);  // 233472 / (49152 + 1024) = 4.7
    // One byte past 48 KiB without opting in: such a block cannot be launched, 0 fit.
    CHECK(blocks_per_sm(reinterpret_cast<const void*>(light), 128, 48 * 1024 + 1) == 0);
    CHECK(blocks_per_sm(reinterpret_cast<const void*>(dynamic_shared), 256, 20 * 1024) == 8);  // 10 by memory, 8 by warps

    // Static shared memory comes from ptxas, before any launch: 40 KiB.
    const void* kernel = reinterpret_cast<const void*>(static_shared);
    cudaFuncAttributes attributes;
    REQUIRE(cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess);
    CHECK(attributes.sharedSizeBytes == 40 * 1024);
    CHECK(blocks_per_sm(kernel, 128) == 5);             // 233472 / 41984 = 5.6
    CHECK(blocks_per_sm(kernel, 1024) == 2);            // 5 by memory, 2 by warps
    CHECK(blocks_per_sm(kernel, 128, 8 * 1024) == 4);   // 233472 / (40960 + 8192 + 1024) = 4.7
    CHECK(blocks_per_sm(kernel, 128, 16 * 1024) == 0);  // 56 KiB in all is more than 48 KiB without opting in

    // Two instances of one template, told apart by their template arguments.
    CHECK(cudaFuncGetAttributes(&attributes, templated_shared(1024)) == cudaSuccess);
    CHECK(attributes.sharedSizeBytes == 4096);
    CHECK(cudaFuncGetAttributes(&attributes, templated_shared(8192)) == cudaSuccess);
    CHECK(attributes.sharedSizeBytes == 32768);
    int blocks = -7;
    CHECK(templated_shared_blocks_per_sm(&blocks, 1024, 256) == cudaSuccess);  // the overload for a kernel named directly
    CHECK(blocks == 8);                                                        // 46 by memory, 8 by warps
    CHECK(templated_shared_blocks_per_sm(&blocks, 8192, 256) == cudaSuccess);
    CHECK(blocks == 6);                                                        // 233472 / (32768 + 1024) = 6.9
}

TEST_CASE("the occupancy API follows a kernel's opt-in to more dynamic shared memory", "[emu][occupancy]") {
    if (!ptxas_report_here()) return;
    // dynamic_shared only: no other test expects its 48 KiB limit.
    const void* kernel = reinterpret_cast<const void*>(dynamic_shared);
    REQUIRE(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024) == cudaSuccess);
    CHECK(blocks_per_sm(kernel, 128, 100 * 1024) == 2);  // 233472 / (102400 + 1024) = 2.3
    CHECK(blocks_per_sm(kernel, 128, 60 * 1024) == 3);   // 233472 / (61440 + 1024) = 3.7
    CHECK(blocks_per_sm(kernel, 128, 101 * 1024) == 0);  // more than it opted in to
    REQUIRE(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024) == cudaSuccess);
    CHECK(blocks_per_sm(kernel, 128, 227 * 1024) == 1);
    CHECK(blocks_per_sm(kernel, 128, 227 * 1024 + 1) == 0);
}

TEST_CASE("the occupancy API answers as an H100 when registers limit", "[emu][occupancy]") {
    if (!ptxas_report_here()) return;
    const void* kernel = reinterpret_cast<const void*>(register_heavy);
    cudaFuncAttributes attributes;
    REQUIRE(cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess);
    // __launch_bounds__(256, 2): 65536 / (256 x 2) = 128 registers, all of which it uses.
    REQUIRE(attributes.numRegs == 128);
    // A warp takes 128 x 32 = 4096 registers; a sub-partition's 16384 hold 4 warps, the SM 16.
    CHECK(blocks_per_sm(kernel, 256) == 2);  // 16 / 8 warps (by threads: 8 blocks)
    CHECK(blocks_per_sm(kernel, 128) == 4);  // 16 / 4
    CHECK(blocks_per_sm(kernel, 32) == 16);  // 16 / 1 (by block slots: 32)
    // Its __launch_bounds__ do not count: 512 threads (16 warps) still fit once.
    CHECK(blocks_per_sm(kernel, 512) == 1);
}

TEST_CASE("the occupancy API refuses what CUDA refuses, naming the argument", "[emu][occupancy]") {
    const void* kernel = reinterpret_cast<const void*>(light);
    int blocks = -7;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, kernel, 128, 0) == cudaErrorInvalidValue);
    CHECK(contains(cudaGetErrorString(cudaErrorInvalidValue), "argument numBlocks is null"));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, static_cast<const void*>(nullptr), 128, 0) ==
          cudaErrorInvalidDeviceFunction);
    CHECK(contains(cudaGetErrorString(cudaErrorInvalidDeviceFunction), "argument func is null"));
    for (const int threads : {0, -1}) {
        INFO(threads << " threads");
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0) == cudaErrorInvalidValue);
        CHECK(contains(cudaGetErrorString(cudaErrorInvalidValue), "argument blockSize is " + std::to_string(threads)));
    }
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, kernel, 128, 0, 2) == cudaErrorInvalidValue);
    CHECK(contains(cudaGetErrorString(cudaErrorInvalidValue), "argument flags is 2"));
    CHECK(blocks == -7);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
}

TEST_CASE("a kernel ptxas did not report is refused, never guessed, with the reason", "[emu][occupancy]") {
    int blocks = -7;
    // As an H100 answers for a function that is not a kernel it knows.
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, compiled_by_gxx_only, 128, 0) ==
          cudaErrorInvalidResourceHandle);
    CHECK(blocks == -7);
    const std::string message = cudaGetErrorString(cudaErrorInvalidResourceHandle);
    INFO(message);
    CHECK(contains(message, "cudaOccupancyMaxActiveBlocksPerMultiprocessor(): the registers per thread of "
                            "(anonymous namespace)::compiled_by_gxx_only are unknown"));
    CHECK((contains(message, "ptxas reported no kernel of that name in tests/occupancy_kernels/occupancy_kernels.cu") ||
           contains(message, "nvcc was not found when tests/occupancy_kernels/occupancy_kernels.cu")));
    // cudaFuncGetAttributes answers what it knows without the registers.
    cudaFuncAttributes attributes;
    CHECK(cudaFuncGetAttributes(&attributes, compiled_by_gxx_only) == cudaSuccess);
    CHECK(attributes.numRegs == 0);
}

TEST_CASE("kernels are matched to ptxas' report by name and template arguments, as the profiler matches them",
          "[emu][occupancy]") {
    // nvcc's symbol for a kernel in an anonymous namespace names the file (this one is what
    // nvcc 13.0 gave a kernel of that name); g++'s does not. Both demangle to
    // "(anonymous namespace)::renamed_by_each_compiler(float*)".
    static const char* const report =
        "ptxas info    : Compiling entry function '_ZN40_GLOBAL__N__f1f8e871_8_probe_cu_95c6d77e24renamed_by_each_compilerEPf' "
        "for 'sm_90'\n"
        "ptxas info    : Used 64 registers, used 0 barriers, 8192 bytes smem\n"
        "ptxas info    : Compiling entry function '_ZN40_GLOBAL__N__f1f8e871_8_probe_cu_95c6d77e10overloadedEPf' for 'sm_90'\n"
        "ptxas info    : Used 32 registers, used 0 barriers\n"
        "ptxas info    : Compiling entry function '_ZN40_GLOBAL__N__f1f8e871_8_probe_cu_95c6d77e10overloadedEPi' for 'sm_90'\n"
        "ptxas info    : Used 40 registers, used 0 barriers\n"
        "ptxas info    : Compiling entry function '_ZN40_GLOBAL__N__f1f8e871_8_probe_cu_95c6d77e18compiled_for_sm_80EPf' "
        "for 'sm_80'\n"
        "ptxas info    : Used 16 registers, used 0 barriers\n";
    emu::detail::register_ptxas_report("tests/emu_occupancy.cpp (a report written by hand)", report);

    const char* symbol = nullptr;
    REQUIRE(cudaFuncGetName(&symbol, renamed_by_each_compiler) == cudaSuccess);
    CHECK(std::string(symbol) == "_ZN12_GLOBAL__N_124renamed_by_each_compilerEPf");
    // 64 registers: 2048 per warp, 8 warps per sub-partition, 32 per SM; 1024 threads are 32 warps.
    CHECK(blocks_per_sm(reinterpret_cast<const void*>(renamed_by_each_compiler), 1024) == 1);
    CHECK(blocks_per_sm(reinterpret_cast<const void*>(renamed_by_each_compiler), 256) == 4);
    cudaFuncAttributes attributes;
    REQUIRE(cudaFuncGetAttributes(&attributes, renamed_by_each_compiler) == cudaSuccess);
    CHECK(attributes.numRegs == 64);
    CHECK(attributes.sharedSizeBytes == 8192);

    // Overloads share a name: which one's registers is unknowable, so neither is answered.
    std::string message;
    CHECK(blocks_per_sm(reinterpret_cast<const void*>(static_cast<void (*)(float*)>(overloaded)), 256, 0, &message) == -1);
    CHECK(contains(message, "ptxas reported two kernels named (anonymous namespace)::overloaded with different resources"));
    // Another architecture's registers are not an H100's.
    CHECK(blocks_per_sm(reinterpret_cast<const void*>(compiled_for_sm_80), 256, 0, &message) == -1);
    CHECK(contains(message, "ptxas compiled (anonymous namespace)::compiled_for_sm_80 for sm_80"));
    CHECK(contains(message, "the CPU backend answers as an H100, sm_90"));
}

TEST_CASE("a source built without nvcc makes the message say so", "[emu][occupancy]") {
    emu::detail::register_ptxas_report("tests/occupancy_kernels/built_without_nvcc.cu", nullptr);
    std::string message;
    CHECK(blocks_per_sm(reinterpret_cast<const void*>(compiled_by_gxx_only), 128, 0, &message) == -1);
    // (Without nvcc, tests/occupancy_kernels/occupancy_kernels.cu is named too.)
    CHECK(contains(message, "nvcc was not found when "));
    CHECK(contains(message, "tests/occupancy_kernels/built_without_nvcc.cu"));
    CHECK(contains(message, "install the CUDA Toolkit and rebuild"));
}
