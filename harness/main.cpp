// The test runner's main, shared by every chapter.
//
// Two things happen here before Catch2 runs the tests:
//  - with no usable CUDA device, tests tagged [gpu] are left out, and one line says
//    so, while the CPU-only tests (references, comparison, validation, launch
//    geometry) still run; the CPU backend (BACKEND=emu) is a usable device, so under
//    it every test runs;
//  - the exit status is 0 or 1, never a count, so `make check` can tell a failing
//    test run (1) from a crash (128 + signal); bad input is 2, with a message naming it:
//    a SEED that is no whole number from 0 to 4294967295, a command line Catch2 does
//    not understand, or a test filter (ARGS) that selects no test case.
// Catch2 version 2 compiles its runner (but not its main) into the file that
// defines this; version 3 ignores it, the runner being in its library.
#define CATCH_CONFIG_RUNNER
// 80 columns, the width version 3 is built with (Ubuntu's), so that a run prints the same
// lines with either version and make check's count of a run's lines holds for both. The
// reports wrap at 76 (kReportWidth); the error maps are up to 70 characters wide.
#define CATCH_CONFIG_CONSOLE_WIDTH 80
#include "catch.h"
#include "compare.h"
#include "cuda_check.h"
#include "expect.h"
#include "random.h"

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {
bool device_available = false;
bool tests_chosen = false;
}  // namespace

bool tutorial::cuda_device_available() { return device_available; }
bool tutorial::tests_chosen_on_command_line() { return tests_chosen; }

namespace {
// True when the command line asks Catch2 to list or explain rather than to run tests.
bool only_lists_or_explains(const Catch::ConfigData& config) {
    bool listing = config.listTests || config.listTags || config.listReporters || config.showHelp || config.libIdentify;
#if defined(TUTORIAL_CATCH2_V3)
    listing = listing || config.listListeners;
#else
    listing = listing || config.listTestNamesOnly;
#endif
    return listing;
}
}  // namespace

int main(int argc, char* argv[]) {
    // Bad input is exit status 2 with a message naming it, never a silent default.
    const std::string seed_problem = tutorial::seed_error(tutorial::seed_setting());
    if (!seed_problem.empty()) {
        std::cerr << seed_problem << "\n";
        return 2;
    }

    tutorial::find_where_to_work(argv[0]);
    Catch::Session session;
    const int parse_status = session.applyCommandLine(argc, argv);
    if (parse_status != 0) {
        return 2;  // Catch2 has said what it did not understand
    }

    tests_chosen = !session.configData().testsOrTags.empty();
    const std::vector<std::string> filters_given = session.configData().testsOrTags;
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
    // A run that shows everything shows the going-further steps' reports too; by default
    // they are left out once a required test case fails (one screen).
    const char* verbose = std::getenv("TUTORIAL_VERBOSE");
    if (verbose == nullptr || *verbose == '\0') verbose = std::getenv("VERBOSE");
    tutorial::show_optional_reports(session.configData().showSuccessfulTests ||
                                    (verbose != nullptr && *verbose != '\0' && std::string(verbose) != "0"));
    session.useConfigData(session.configData());
    std::cout << "Inputs come from seed " << tutorial::run_seed() << " (change it with SEED=n).\n";
    const int failures = session.run();
    if (tutorial::test_cases_started() == 0 && !only_lists_or_explains(session.configData())) {
        // A filter that matches nothing would otherwise be a green run of no tests.
        std::string given;
        for (const std::string& filter : filters_given) given += (given.empty() ? "" : " ") + filter;
        std::cerr << "No test case ran: the test filter '" << given << "' (ARGS) selects none";
        if (!device_available) std::cerr << " that can run here (the tests tagged [gpu] need a CUDA device)";
        std::cerr << ". " << argv[0] << " --list-tests lists the test cases, --list-tags their tags.\n";
        return 2;
    }
    if (only_lists_or_explains(session.configData())) {
        return 0;  // Catch2 version 2 returns how many things it listed
    }
    // Which failures are optional: a going-further step's ([extra]) never keeps a chapter
    // from done, and a run that fails only there must say so.
    const std::string optional_note = tutorial::optional_failures_note(
        tutorial::failed_test_cases(false), tutorial::failed_test_cases(true), tutorial::hidden_optional_failures(),
        !tests_chosen);
    if (!optional_note.empty()) std::cout << tutorial::wrap_report_text(optional_note);
    if (failures != 0 && !tutorial::where_to_work().empty()) {
        // The last lines on the screen: where the work is, whatever failed first.
        std::cout << tutorial::wrap_report_text(tutorial::where_to_work());
    }
    return failures == 0 ? 0 : 1;
}
