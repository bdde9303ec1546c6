// The test runner's main, shared by every chapter.
//
// Two things happen here before Catch2 runs the tests:
//  - with no usable CUDA device, tests tagged [gpu] are left out, and one line says
//    so, while the CPU-only tests (references, comparison, validation, launch
//    geometry) still run; the CPU backend (BACKEND=emu) is a usable device, so under
//    it every test runs;
//  - the exit status is 0 or 1, never a count, so `make check` can tell a failing
//    test run (1) from a crash (128 + signal).
// Catch2 version 2 compiles its runner (but not its main) into the file that
// defines this; version 3 ignores it, the runner being in its library.
#define CATCH_CONFIG_RUNNER
// Room for the error maps, which are up to 70 characters wide (version 2 only;
// version 3 fixes the width when the library is built).
#define CATCH_CONFIG_CONSOLE_WIDTH 100
#include "catch.h"
#include "expect.h"
#include "random.h"

#include <cuda_runtime.h>

#include <iostream>
#include <string>

namespace {
bool device_available = false;

bool probe_device(std::string& why) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        why = cudaGetErrorString(status);
        return false;
    }
    if (count == 0) {
        why = "the driver reports no devices";
        return false;
    }
    return true;
}
}  // namespace

bool tutorial::cuda_device_available() { return device_available; }

int main(int argc, char* argv[]) {
    Catch::Session session;
    const int parse_status = session.applyCommandLine(argc, argv);
    if (parse_status != 0) {
        return 1;
    }

    std::string why;
    device_available = probe_device(why);
    cudaDeviceProp device;
    if (device_available && cudaGetDeviceProperties(&device, 0) == cudaSuccess) {
        // With BACKEND=emu the "device" is the CPU backend, which runs every test too.
        std::cout << "Kernels run on: " << device.name << ".\n";
    }
    if (!device_available) {
        std::cout << "No CUDA device found (" << why << "): tests tagged [gpu] are skipped, the others run.\n";
        auto& filters = session.configData().testsOrTags;
        if (filters.empty()) {
            filters.push_back("~[gpu]");
        } else {
            for (std::string& filter : filters) {
                // A tag expression takes the exclusion as is; a test name is quoted
                // first, since a name may itself contain '~'.
                const bool is_tag_expression = filter[0] == '[' || filter[0] == '~';
                filter = (is_tag_expression ? filter : "\"" + filter + "\"") + "~[gpu]";
            }
        }
        session.useConfigData(session.configData());
    }
    std::cout << "Inputs come from seed " << tutorial::run_seed() << " (change it with SEED=n).\n";
    return session.run() == 0 ? 0 : 1;
}
