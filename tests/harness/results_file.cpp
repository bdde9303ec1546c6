// The results file: a few lines that a test run leaves for `make status`,
// `make chapterN solution` and `make grade` (tools/workflow.py reads them), so that
// they know how the last run went without running the tests again.
//
// The Makefile's `test` recipe names the file in TUTORIAL_RESULTS_FILE; without it
// nothing is written. The file is rewritten as the run goes, so a run that dies leaves
// "state=running" and the test it was in, never the results of an older run.
//
//   state=finished            running while the tests run; crashed after a signal that
//                             Catch2 caught (the tests after it did not run)
//   passed=3                  test cases, as in Catch2's "test cases: 4 | 3 passed | 1 failed"
//   failed=1
//   extra_passed=1            of those, the test cases tagged [extra]: a chapter's optional
//   extra_failed=0            "going further" steps, which it counts as done without
//   gpu_tests=run             skipped when no CUDA device ran the tests tagged [gpu]
//   selection=all             chosen when the command line picked the tests to run
//   current=<test name>       the test case running, or the one that crashed
//   crash=<what>              Catch2's name for the signal, e.g. "SIGSEGV - Segmentation violation signal"
//
// Catch2's listener interface differs between versions 2 and 3 in its base class, its
// headers and what assertionEnded returns; the events and their data are the same.
#if !defined(TUTORIAL_CATCH2_V3)
// Version 2 shows its listener interface only to files that ask for it.
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#endif
#include "catch.h"
#include "expect.h"

#if defined(TUTORIAL_CATCH2_V3)
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
#endif

#include <cstdlib>
#include <fstream>
#include <string>

namespace {

std::size_t started_test_cases = 0;

#if defined(TUTORIAL_CATCH2_V3)
using ListenerBase = Catch::EventListenerBase;
#else
using ListenerBase = Catch::TestEventListenerBase;
#endif

class ResultsFile : public ListenerBase {
public:
    using ListenerBase::ListenerBase;

    void testRunStarting(Catch::TestRunInfo const& info) override {
        ListenerBase::testRunStarting(info);
        write("running");
    }

    void testCaseStarting(Catch::TestCaseInfo const& info) override {
        ListenerBase::testCaseStarting(info);
        ++started_test_cases;
        current_ = info.name;
        // Both Catch2 versions spell a test's tags "[chapter3][extra][gpu]" here.
        current_is_extra_ = info.tagsAsString().find("[extra]") != std::string::npos;
        write("running");
    }

    void testCaseEnded(Catch::TestCaseStats const& stats) override {
        // A test case marked [!mayfail] that failed counts as passed, as Catch2 counts it.
        passed_ += stats.totals.testCases.passed + stats.totals.testCases.failedButOk;
        failed_ += stats.totals.testCases.failed;
        if (current_is_extra_) {
            extra_passed_ += stats.totals.testCases.passed + stats.totals.testCases.failedButOk;
            extra_failed_ += stats.totals.testCases.failed;
        }
        if (crash_.empty()) {
            current_.clear();
        }
        write("running");
        ListenerBase::testCaseEnded(stats);
    }

    // A signal that Catch2 caught shows up as a failed assertion of its own kind; Catch2
    // then ends the test case and the run, and the process dies of the signal.
    // (Version 2's listeners never see fatalErrorEncountered, so it is caught here.)
#if defined(TUTORIAL_CATCH2_V3)
    void assertionEnded(Catch::AssertionStats const& stats) override {
        note_crash(stats);
        ListenerBase::assertionEnded(stats);
    }
#else
    bool assertionEnded(Catch::AssertionStats const& stats) override {
        note_crash(stats);
        return ListenerBase::assertionEnded(stats);
    }
#endif

    void testRunEnded(Catch::TestRunStats const& stats) override {
        write(crash_.empty() ? "finished" : "crashed");
        ListenerBase::testRunEnded(stats);
    }

private:
    void note_crash(Catch::AssertionStats const& stats) {
        if (stats.assertionResult.getResultType() == Catch::ResultWas::FatalErrorCondition) {
            crash_ = std::string(stats.assertionResult.getMessage());
        }
    }

    void write(const char* state) const {
        const char* path = std::getenv("TUTORIAL_RESULTS_FILE");
        if (path == nullptr || *path == '\0') {
            return;
        }
        std::ofstream out(path, std::ios::trunc);
        out << "state=" << state << '\n'
            << "passed=" << passed_ << '\n'
            << "failed=" << failed_ << '\n'
            << "extra_passed=" << extra_passed_ << '\n'
            << "extra_failed=" << extra_failed_ << '\n'
            << "gpu_tests=" << (tutorial::cuda_device_available() ? "run" : "skipped") << '\n'
            << "selection=" << (tutorial::tests_chosen_on_command_line() ? "chosen" : "all") << '\n';
        if (!current_.empty()) {
            out << "current=" << current_ << '\n';
        }
        if (!crash_.empty()) {
            out << "crash=" << crash_ << '\n';
        }
    }

    std::size_t passed_ = 0;
    std::size_t failed_ = 0;
    std::size_t extra_passed_ = 0;  // the [extra] test cases among passed_ and failed_
    std::size_t extra_failed_ = 0;
    bool current_is_extra_ = false;
    std::string current_;
    std::string crash_;
};

}  // namespace

CATCH_REGISTER_LISTENER(ResultsFile)

std::size_t tutorial::test_cases_started() { return started_test_cases; }
