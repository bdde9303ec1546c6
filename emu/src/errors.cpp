// Error state of the CPU backend: the last error, the pending error of a kernel's
// execution, and CUDA's texts with the backend's diagnostics appended.
#include "internal.h"

#include <map>
#include <mutex>
#include <string>

namespace emu {
namespace detail {
namespace {

struct ErrorState {
    std::mutex mutex;
    cudaError_t last = cudaSuccess;
    cudaError_t execution = cudaSuccess;
    // cudaGetErrorString() returns a pointer that must stay valid: one string per code,
    // replaced only when a newer error with that code comes.
    std::map<int, std::string> texts;
};

ErrorState& state() {
    static ErrorState s;
    return s;
}

// The error in one of the state's slots (last or execution), which is then cleared.
cudaError_t take(cudaError_t ErrorState::*slot) {
    std::lock_guard<std::mutex> lock(state().mutex);
    const cudaError_t error = state().*slot;
    state().*slot = cudaSuccess;
    return error;
}

const char* base_text(cudaError_t error) {
    switch (error) {
        case cudaSuccess: return "no error";
        case cudaErrorInvalidValue: return "invalid argument";
        case cudaErrorMemoryAllocation: return "out of memory";
        case cudaErrorInitializationError: return "initialization error";
        case cudaErrorInvalidConfiguration: return "invalid configuration argument";
        case cudaErrorInvalidDevicePointer: return "invalid device pointer";
        case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
        case cudaErrorInvalidDeviceFunction: return "invalid device function";
        case cudaErrorNoDevice: return "no CUDA-capable device is detected";
        case cudaErrorInvalidDevice: return "invalid device ordinal";
        case cudaErrorInvalidResourceHandle: return "invalid resource handle";
        case cudaErrorNotReady: return "device not ready";
        case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
        case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
        case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
        case cudaErrorAssert: return "device-side assert triggered";
        case cudaErrorMisalignedAddress: return "misaligned address";
        case cudaErrorLaunchFailure: return "unspecified launch failure";
        case cudaErrorNotSupported: return "operation not supported";
        case cudaErrorInvalidClusterSize: return "invalid cluster size";
        case cudaErrorUnknown: return "unknown error";
    }
    return "unrecognized error code";
}

// CUDA's text, then the backend's diagnostic, indented, on lines of its own: it reads
// well inside the parentheses of a tutorial::CudaError's message.
void remember_detail(cudaError_t code, const std::string& detail) {
    if (detail.empty()) {
        state().texts.erase(code);
        return;
    }
    std::string text = std::string(base_text(code)) + "; the CPU backend found:\n  ";
    for (char c : detail) {
        text += c;
        if (c == '\n') text += "  ";
    }
    state().texts[code] = text + "\n";
}

}  // namespace

cudaError_t fail(cudaError_t code, std::string detail) {
    std::lock_guard<std::mutex> lock(state().mutex);
    state().last = code;
    remember_detail(code, detail);
    return code;
}

void fail_execution(cudaError_t code, std::string detail) {
    std::lock_guard<std::mutex> lock(state().mutex);
    state().execution = code;
    remember_detail(code, detail);
}

cudaError_t take_execution_error() { return take(&ErrorState::execution); }

void forget_error_details() {
    std::lock_guard<std::mutex> lock(state().mutex);
    state().texts.clear();
}

}  // namespace detail
}  // namespace emu

using namespace emu::detail;

cudaError_t cudaGetLastError() { return take(&ErrorState::last); }

cudaError_t cudaPeekAtLastError() {
    std::lock_guard<std::mutex> lock(state().mutex);
    return state().last;
}

const char* cudaGetErrorString(cudaError_t error) {
    std::lock_guard<std::mutex> lock(state().mutex);
    const auto found = state().texts.find(error);
    return found != state().texts.end() ? found->second.c_str() : base_text(error);
}

const char* cudaGetErrorName(cudaError_t error) {
    switch (error) {
#define EMU_NAME_(e) \
    case e: return #e;
        EMU_NAME_(cudaSuccess)
        EMU_NAME_(cudaErrorInvalidValue)
        EMU_NAME_(cudaErrorMemoryAllocation)
        EMU_NAME_(cudaErrorInitializationError)
        EMU_NAME_(cudaErrorInvalidConfiguration)
        EMU_NAME_(cudaErrorInvalidDevicePointer)
        EMU_NAME_(cudaErrorInvalidMemcpyDirection)
        EMU_NAME_(cudaErrorInvalidDeviceFunction)
        EMU_NAME_(cudaErrorNoDevice)
        EMU_NAME_(cudaErrorInvalidDevice)
        EMU_NAME_(cudaErrorInvalidResourceHandle)
        EMU_NAME_(cudaErrorNotReady)
        EMU_NAME_(cudaErrorIllegalAddress)
        EMU_NAME_(cudaErrorLaunchOutOfResources)
        EMU_NAME_(cudaErrorLaunchTimeout)
        EMU_NAME_(cudaErrorAssert)
        EMU_NAME_(cudaErrorMisalignedAddress)
        EMU_NAME_(cudaErrorLaunchFailure)
        EMU_NAME_(cudaErrorNotSupported)
        EMU_NAME_(cudaErrorInvalidClusterSize)
        EMU_NAME_(cudaErrorUnknown)
#undef EMU_NAME_
    }
    return "cudaErrorUnknown";
}
