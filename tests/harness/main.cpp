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
#include "cuda_check.h"
#include "expect.h"
#include "random.h"

#include <iostream>
#include <string>

namespace {
bool device_available = false;
bool tests_chosen = false;
}  // namespace

bool tutorial::cuda_device_available() { return device_available; }
bool tutorial::tests_chosen_on_command_line() { return tests_chosen; }

int main(int argc, char* argv[]) {
    Catch::Session session;
    const int parse_status = session.applyCommandLine(argc, argv);
    if (parse_status != 0) {
        return 1;
    }

    tests_chosen = !session.configData().testsOrTags.empty();
    std::string why;
    device_available = tutorial::cuda_device_found(why);
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
    }
    // Catch2's own seed (it shuffles with it, and version 3 prints it) is ours too,
    // so only one seed is ever mentioned.
    session.configData().rngSeed = static_cast<unsigned>(tutorial::run_seed());
    session.useConfigData(session.configData());
    std::cout << "Inputs come from seed " << tutorial::run_seed() << " (change it with SEED=n).\n";
    return session.run() == 0 ? 0 : 1;
}
