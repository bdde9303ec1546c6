// The driver functions a test program on a GPU hands out by name: only those the course's
// exercises use. The CUDA runtime's cudaGetDriverEntryPointByVersion() reaches any driver
// function from a string, cuMemcpy* included, and a string can be built at run time where
// the object check (tools/tutorial/guard.py) cannot read it. Chapters 8 and 10 need the
// door (their host code asks for cuTensorMapEncodeTiled), so the guard lets their objects
// call it; the test programs are linked with -Wl,--wrap for these functions (Makefile,
// BACKEND_TEST_LDFLAGS), and every call of the program, the student's included, comes here.
// The CPU backend knows the same two names and no others (emu/include/emu/driver_entry.h).
#include <cuda_runtime.h>

#if !defined(TUTORIAL_EMU)

#include <cstdio>
#include <cstring>

namespace {

bool handed_out(const char* symbol) {
    return symbol != nullptr && (std::strcmp(symbol, "cuTensorMapEncodeTiled") == 0 ||
                                 std::strcmp(symbol, "cuGetErrorString") == 0);
}

cudaError_t refuse(const char* symbol, void** funcPtr, cudaDriverEntryPointQueryResult* driverStatus) {
    std::fprintf(stderr,
                 "refused: the program asked the CUDA driver for %s by name; a test program hands out only "
                 "cuTensorMapEncodeTiled and cuGetErrorString, the driver functions the exercises use (the answer "
                 "must be computed by your kernels)\n",
                 symbol != nullptr ? symbol : "(null)");
    if (funcPtr != nullptr) *funcPtr = nullptr;
    if (driverStatus != nullptr) *driverStatus = cudaDriverEntryPointSymbolNotFound;
    return cudaErrorSymbolNotFound;
}

}  // namespace

extern "C" {

// The runtime's own function, under the name --wrap gives it. Weak: the library's and the
// tools' test programs link the harness without --wrap, and never call what is below.
__attribute__((weak)) cudaError_t __real_cudaGetDriverEntryPointByVersion(
    const char* symbol, void** funcPtr, unsigned int cudaVersion, unsigned long long flags,
    cudaDriverEntryPointQueryResult* driverStatus);

cudaError_t __wrap_cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr, unsigned int cudaVersion,
                                                    unsigned long long flags,
                                                    cudaDriverEntryPointQueryResult* driverStatus) {
    if (!handed_out(symbol)) return refuse(symbol, funcPtr, driverStatus);
    return __real_cudaGetDriverEntryPointByVersion(symbol, funcPtr, cudaVersion, flags, driverStatus);
}

// The unversioned door (deprecated): no exercise uses it.
cudaError_t __wrap_cudaGetDriverEntryPoint(const char* symbol, void** funcPtr, unsigned long long,
                                           cudaDriverEntryPointQueryResult* driverStatus) {
    return refuse(symbol, funcPtr, driverStatus);
}

}  // extern "C"

#endif
